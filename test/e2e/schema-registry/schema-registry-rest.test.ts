// The schema registry's REST door over real HTTP (identity + schema registry on PGlite): register
// and read back, idempotent replays, 404/409/422 shapes, every compatibility mode through the
// service, the built-in schemas, audit events in the outbox, and tenant isolation.
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { PROJECT_ROOT } from '../../../platform/project-root';
import { identityService } from '../../../services/identity';
import { EVENT_CATALOGUE } from '../../../platform/contracts/events.catalogue';
import { schemaRegistryService } from '../../../services/schema-registry';
import { fingerprintOf } from '../../../subgraphs/schema-registry/schema-definition';
import { SchemaRegistryClient } from '../../../platform/clients/schema-registry.client';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(90_000);

let h: Harness;
let url: string;
let admin: string;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const tenantToken = (tenantId: string, scopes = ['read', 'write'], roles = ['user']) =>
  tokens.issue({ username: `someone-${tenantId}`, tenantId, roles, scopes });
const operatorToken = () =>
  tokens.issue({
    username: 'operator',
    tenantId: 'platform',
    roles: ['platform-admin'],
    scopes: ['read', 'write', 'admin'],
  });

beforeAll(async () => {
  h = await startServices([identityService, schemaRegistryService], { PASSWORD_SCRYPT_LOG_N: '10' });
  url = h.services['schema-registry']!.url;
  const login = await fetch(`${h.services.identity!.url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'admin-dev-password' }),
  });
  admin = ((await login.json()) as { access_token: string }).access_token;
});
afterAll(async () => h?.close());

async function call(method: string, route: string, token: string | undefined, body?: unknown) {
  const res = await fetch(url + route, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
}
const register = (token: string, name: string, body: Record<string, unknown>) =>
  call('POST', `/schemas/${name}/versions`, token, body);

const customer = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 36 }, segment: { enum: ['retail', 'corporate'] } },
  required: ['id'],
};

describe('register and read back', () => {
  it('registers a first version (201), reads it by version and as latest, and lists it', async () => {
    const created = await register(admin, 'customer', { version: '1.0.0', schema: customer });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'customer',
      kind: 'data',
      version: '1.0.0',
      schema: customer,
      compatibility: 'BACKWARD',
      owner: 'default',
      created_by: 'admin',
      fingerprint: fingerprintOf(customer),
    });
    expect(Date.parse(created.body.created_at)).not.toBeNaN();

    expect((await call('GET', '/schemas/customer/versions/1.0.0', admin)).body).toEqual(created.body);
    expect((await call('GET', '/schemas/customer/versions/latest', admin)).body).toEqual(created.body);
    const list = await call('GET', '/schemas', admin);
    expect(list.status).toBe(200);
    expect(list.body.schemas).toContainEqual({
      name: 'customer',
      kind: 'data',
      latest_version: '1.0.0',
      compatibility: 'BACKWARD',
      owner: 'default',
    });
    expect(list.body.next_cursor).toBeNull();
  });

  it('the identical schema again under the same version is an idempotent 200 (key order does not matter)', async () => {
    const reordered = { required: ['id'], properties: customer.properties, type: 'object', $schema: customer.$schema };
    const again = await register(admin, 'customer', { version: '1.0.0', schema: reordered });
    expect(again.status).toBe(200);
    expect(again.body.version).toBe('1.0.0');
    expect((await call('GET', '/schemas/customer/versions', admin)).body).toEqual({
      name: 'customer',
      versions: ['1.0.0'],
    });
  });

  it('same version with a different schema, or a version not greater than the latest, is 409', async () => {
    const changed = await register(admin, 'customer', { version: '1.0.0', schema: { ...customer, title: 'changed' } });
    expect(changed.status).toBe(409);
    expect(changed.body.detail).toMatch(/already registered with a different schema/);

    expect(
      (await register(admin, 'customer', { version: '1.1.0', schema: { ...customer, title: 'Customer' } })).status,
    ).toBe(201);
    const lower = await register(admin, 'customer', { version: '1.0.5', schema: { ...customer, title: 'older' } });
    expect(lower.status).toBe(409);
    expect(lower.body.detail).toMatch(/not greater than the latest version 1\.1\.0/);
    expect((await call('GET', '/schemas/customer/versions', admin)).body.versions).toEqual(['1.0.0', '1.1.0']);
    expect((await call('GET', '/schemas/customer/versions/latest', admin)).body.version).toBe('1.1.0');
  });

  it("a kind that differs from the schema's is 409; changing the mode goes through PUT", async () => {
    expect((await register(admin, 'customer', { version: '2.0.0', kind: 'rule-pack', schema: customer })).status).toBe(
      409,
    );
    expect(
      (await register(admin, 'customer', { version: '2.0.0', compatibility: 'NONE', schema: customer })).status,
    ).toBe(409);
  });

  it('the typed client reads what REST serves', async () => {
    const client = new SchemaRegistryClient(url);
    const latest = await client.get({ token: admin }, 'customer');
    expect(latest).toMatchObject({ name: 'customer', version: '1.1.0', owner: 'default' });
    const list = await client.list({ token: admin }, { kind: 'data' });
    expect(list.schemas.map((s) => s.name)).toContain('customer');
    await expect(client.get({ token: admin }, 'customer', '9.9.9')).rejects.toMatchObject({ status: 404 });
  });

  it('the typed client registers, checks, configures and lists versions', async () => {
    const client = new SchemaRegistryClient(url);
    const ctx = { token: await tenantToken('tenant-client') };
    const first = await client.register(ctx, 'invoice', {
      version: '1.0.0',
      kind: 'data',
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
    });
    expect(first).toMatchObject({
      name: 'invoice',
      version: '1.0.0',
      owner: 'tenant-client',
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const narrowing = { type: 'object', properties: { n: { type: 'integer', maximum: 9 } } };
    expect(await client.checkCompatibility(ctx, 'invoice', narrowing)).toEqual({
      compatible: false,
      reasons: [expect.stringMatching(/^#\/properties\/n: maximum 9/)],
    });
    await expect(client.register(ctx, 'invoice', { version: '1.1.0', schema: narrowing })).rejects.toMatchObject({
      status: 409,
      body: {
        detail: {
          message: expect.stringMatching(/not BACKWARD compatible/),
          reasons: [expect.stringMatching(/^#\/properties\/n/)],
        },
      },
    });
    expect(await client.setCompatibility(ctx, 'invoice', 'FORWARD')).toMatchObject({
      name: 'invoice',
      compatibility: 'FORWARD',
    });
    expect((await client.register(ctx, 'invoice', { version: '1.1.0', schema: narrowing })).version).toBe('1.1.0');
    expect(await client.versions(ctx, 'invoice')).toEqual({ name: 'invoice', versions: ['1.0.0', '1.1.0'] });
  });
});

describe("errors in the spec's shapes", () => {
  it('unknown names and versions are 404', async () => {
    expect(await call('GET', '/schemas/nope/versions/latest', admin)).toEqual({
      status: 404,
      body: { detail: "Schema 'nope' not found" },
    });
    expect((await call('GET', '/schemas/nope/versions', admin)).status).toBe(404);
    expect((await call('GET', '/schemas/customer/versions/7.0.0', admin)).status).toBe(404);
    expect((await call('GET', '/schemas/customer/versions/not-a-version', admin)).status).toBe(404);
    expect((await call('PUT', '/schemas/nope/compatibility', admin, { compatibility: 'FULL' })).status).toBe(404);
    expect((await call('POST', '/schemas/nope/compatibility-check', admin, { schema: {} })).status).toBe(404);
  });

  it('a document that is not a JSON Schema draft-07 is 422 naming `schema`', async () => {
    const bad = await register(admin, 'broken', { version: '1.0.0', schema: { type: 'strnig' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'schema'], type: 'value_error' });
    expect(bad.body.detail[0].msg).toMatch(/draft-07/);
    const unresolved = await register(admin, 'broken', { version: '1.0.0', schema: { $ref: '#/definitions/missing' } });
    expect(unresolved.body.detail[0].loc).toEqual(['body', 'schema']);
    const otherDraft = await register(admin, 'broken', {
      version: '1.0.0',
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema' },
    });
    expect(otherDraft.status).toBe(422);
    expect(otherDraft.body.detail[0].loc).toEqual(['body', 'schema', '$schema']);
    const notObject = await register(admin, 'broken', { version: '1.0.0', schema: [1] });
    expect(notObject.status).toBe(422);
    expect(notObject.body.detail[0].loc).toEqual(['body', 'schema']);
    const check = await call('POST', '/schemas/customer/compatibility-check', admin, { schema: { minLength: 'x' } });
    expect(check.status).toBe(422);
    expect(check.body.detail[0].loc).toEqual(['body', 'schema']);
    expect((await call('GET', '/schemas/broken/versions', admin)).status).toBe(404);
  });

  it('bad versions, kinds, modes, names and cursors are 422 naming the field', async () => {
    const version = await register(admin, 'x', { version: 'v1', schema: {} });
    expect(version.status).toBe(422);
    expect(version.body.detail[0].loc).toEqual(['body', 'version']);
    expect((await register(admin, 'x', { version: '1.0.0+build', schema: {} })).body.detail[0].loc).toEqual([
      'body',
      'version',
    ]);
    expect((await register(admin, 'x', { version: '1.0.0', kind: 'other', schema: {} })).body.detail[0].loc).toEqual([
      'body',
      'kind',
    ]);
    expect(
      (await register(admin, 'x', { version: '1.0.0', compatibility: 'SIDEWAYS', schema: {} })).body.detail[0].loc,
    ).toEqual(['body', 'compatibility']);
    expect((await register(admin, 'x', { version: '1.0.0' })).body.detail[0].loc).toEqual(['body', 'schema']);
    expect((await register(admin, '-bad', { version: '1.0.0', schema: {} })).body.detail[0].loc).toEqual([
      'path',
      'name',
    ]);
    const cursor = await call('GET', '/schemas?cursor=forged', admin);
    expect(cursor.status).toBe(422);
    expect(cursor.body.detail[0].loc).toEqual(['query', 'cursor']);
    expect((await call('GET', '/schemas?limit=0', admin)).status).toBe(422);
  });

  it('401 without a token, 403 without the write scope', async () => {
    const anon = await fetch(`${url}/schemas`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer');
    const reader = await tenantToken('default', ['read']);
    expect((await register(reader, 'ro', { version: '1.0.0', schema: {} })).status).toBe(403);
    expect((await call('PUT', '/schemas/customer/compatibility', reader, { compatibility: 'NONE' })).status).toBe(403);
    expect((await call('GET', '/schemas/customer/versions/latest', reader)).status).toBe(200);
  });
});

describe('compatibility modes through the service', () => {
  const base = {
    type: 'object',
    properties: { code: { type: 'string', maxLength: 10 }, level: { enum: ['low', 'high'] } },
    required: ['code'],
  };

  async function subject(name: string, compatibility?: string) {
    const res = await register(admin, name, {
      version: '1.0.0',
      schema: base,
      ...(compatibility ? { compatibility } : {}),
    });
    expect(res.status).toBe(201);
    return res;
  }

  it('BACKWARD (the default): a breaking change is 409 with reasons naming JSON pointers; a compatible one is 201', async () => {
    await subject('mode-backward');
    const breaking = await register(admin, 'mode-backward', {
      version: '1.1.0',
      schema: {
        ...base,
        properties: { ...base.properties, code: { type: 'string', maxLength: 5 }, extra: { type: 'string' } },
        required: ['code', 'extra'],
      },
    });
    expect(breaking.status).toBe(409);
    expect(breaking.body.detail.message).toBe(
      "Schema is not BACKWARD compatible with version 1.0.0 of 'mode-backward'",
    );
    expect(breaking.body.detail.reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^#\/properties\/code: maxLength 5/),
        expect.stringMatching(/^#\/properties\/extra: required property 'extra'/),
      ]),
    );
    const fine = await register(admin, 'mode-backward', {
      version: '1.1.0',
      schema: { ...base, properties: { ...base.properties, level: { enum: ['low', 'high', 'max'] } } },
    });
    expect(fine.status).toBe(201);
  });

  it('FORWARD: widening is 409, narrowing is 201', async () => {
    await subject('mode-forward', 'FORWARD');
    const widened = await register(admin, 'mode-forward', {
      version: '1.1.0',
      schema: { ...base, properties: { ...base.properties, level: { enum: ['low', 'high', 'max'] } } },
    });
    expect(widened.status).toBe(409);
    expect(widened.body.detail.reasons).toEqual([
      '#/properties/level: "max" is accepted by the new version but rejected by the previous version',
    ]);
    const narrowed = await register(admin, 'mode-forward', {
      version: '1.1.0',
      schema: { ...base, properties: { ...base.properties, level: { enum: ['low'] } } },
    });
    expect(narrowed.status).toBe(201);
  });

  it('FULL: both directions; only neutral changes pass', async () => {
    await subject('mode-full', 'FULL');
    expect(
      (
        await register(admin, 'mode-full', {
          version: '1.0.1',
          schema: { ...base, properties: { ...base.properties, level: { enum: ['low'] } } },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await register(admin, 'mode-full', {
          version: '1.0.1',
          schema: { ...base, properties: { ...base.properties, level: { enum: ['low', 'high', 'max'] } } },
        })
      ).status,
    ).toBe(409);
    expect(
      (await register(admin, 'mode-full', { version: '1.0.1', schema: { ...base, description: 'documented' } })).status,
    ).toBe(201);
  });

  it('NONE: anything goes', async () => {
    await subject('mode-none', 'NONE');
    expect((await register(admin, 'mode-none', { version: '2.0.0', schema: { type: 'array' } })).status).toBe(201);
  });

  it('compatibility-check answers without registering; PUT changes the mode and is then applied', async () => {
    await subject('mode-switch');
    const narrower = { ...base, properties: { ...base.properties, code: { type: 'string', maxLength: 3 } } };
    const check = await call('POST', '/schemas/mode-switch/compatibility-check', admin, { schema: narrower });
    expect(check).toEqual({
      status: 200,
      body: { compatible: false, reasons: [expect.stringMatching(/^#\/properties\/code: maxLength 3/)] },
    });
    expect((await call('GET', '/schemas/mode-switch/versions', admin)).body.versions).toEqual(['1.0.0']);

    const put = await call('PUT', '/schemas/mode-switch/compatibility', admin, { compatibility: 'FORWARD' });
    expect(put).toEqual({
      status: 200,
      body: { name: 'mode-switch', kind: 'data', latest_version: '1.0.0', compatibility: 'FORWARD', owner: 'default' },
    });
    expect((await call('POST', '/schemas/mode-switch/compatibility-check', admin, { schema: narrower })).body).toEqual({
      compatible: true,
      reasons: [],
    });
    expect((await register(admin, 'mode-switch', { version: '1.1.0', schema: narrower })).status).toBe(201);
    expect((await call('GET', '/schemas/mode-switch/versions/1.0.0', admin)).body.compatibility).toBe('FORWARD');
    expect(
      (await call('PUT', '/schemas/mode-switch/compatibility', admin, { compatibility: 'EVERYTHING' })).body.detail[0]
        .loc,
    ).toEqual(['body', 'compatibility']);
  });
});

describe('built-in platform schemas', () => {
  const contracts = fs
    .readdirSync(path.join(PROJECT_ROOT, 'platform/contracts'))
    .filter((f) => f.endsWith('.schema.json'));

  it('every platform/contracts file is registered under owner platform, readable by every tenant', async () => {
    const other = await tenantToken('tenant-reader', ['read']);
    const list = await call('GET', '/schemas', other);
    for (const file of contracts) {
      const name = file.replace(/\.schema\.json$/, '');
      const document = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'platform/contracts', file), 'utf8'));
      expect(list.body.schemas).toContainEqual(expect.objectContaining({ name, owner: 'platform' }));
      const read = await call('GET', `/schemas/${name}/versions/latest`, other);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ name, owner: 'platform', schema: document, created_by: null });
    }
    const rulePack = await call('GET', '/schemas/rule-pack/versions/latest', other);
    expect(rulePack.body).toMatchObject({ kind: 'rule-pack', version: '1.0.0', compatibility: 'BACKWARD' });
    expect((await call('GET', '/schemas?kind=rule-pack', other)).body.schemas).toEqual([
      { name: 'rule-pack', kind: 'rule-pack', latest_version: '1.0.0', compatibility: 'BACKWARD', owner: 'platform' },
    ]);
  });

  it('no tenant may register a built-in name (409), configure it (403) or write as `platform` (403)', async () => {
    const rulePack = (await call('GET', '/schemas/rule-pack/versions/latest', admin)).body.schema;
    const taken = await register(admin, 'rule-pack', { version: '9.0.0', schema: rulePack });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toMatch(/built-in platform schema/);
    expect((await call('PUT', '/schemas/rule-pack/compatibility', admin, { compatibility: 'NONE' })).status).toBe(403);
    const asPlatform = await tenantToken('platform');
    expect((await register(asPlatform, 'sneaky', { version: '1.0.0', schema: {} })).status).toBe(403);
  });

  it('a platform operator adds versions of a built-in schema, checked like any other', async () => {
    const op = await operatorToken();
    const current = (await call('GET', '/schemas/rule-pack/versions/latest', op)).body.schema;
    const narrowed = { ...current, required: [...current.required, 'extra_field'] };
    const refused = await register(op, 'rule-pack', { version: '1.1.0', schema: narrowed });
    expect(refused.status).toBe(409);
    expect(refused.body.detail.reasons[0]).toMatch(/^#\/properties\/extra_field: required property 'extra_field'/);
    const annotated = { ...current, description: `${current.description} (annotated)` };
    const added = await register(op, 'rule-pack', { version: '1.0.1', schema: annotated });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ owner: 'platform', version: '1.0.1', created_by: 'operator' });
    expect((await call('GET', '/schemas/rule-pack/versions', admin)).body.versions).toEqual(['1.0.0', '1.0.1']);
  });
});

describe('audit events through the outbox', () => {
  it('schema_registered and schema_compatibility_changed carry name, version, kind and fingerprint', async () => {
    const t = await tenantToken('tenant-audit');
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect((await register(t, 'audited', { version: '1.0.0', kind: 'workflow-pack', schema })).status).toBe(201);
    expect((await register(t, 'audited', { version: '1.0.0', kind: 'workflow-pack', schema })).status).toBe(200);
    expect((await call('PUT', '/schemas/audited/compatibility', t, { compatibility: 'FULL' })).status).toBe(200);
    expect((await call('PUT', '/schemas/audited/compatibility', t, { compatibility: 'FULL' })).status).toBe(200);
    const events = await h.db.prisma.outboxEvent.findMany({
      where: { service: 'schema-registry', tenantId: 'tenant-audit' },
      orderBy: { id: 'asc' },
    });
    expect(events.map((e) => [e.eventType, e.eventData, e.userId])).toEqual([
      [
        'schema_registered',
        {
          name: 'audited',
          version: '1.0.0',
          kind: 'workflow-pack',
          fingerprint: fingerprintOf(schema),
          owner: 'tenant-audit',
        },
        'someone-tenant-audit',
      ],
      [
        'schema_compatibility_changed',
        {
          name: 'audited',
          kind: 'workflow-pack',
          version: '1.0.0',
          fingerprint: fingerprintOf(schema),
          compatibility: 'FULL',
          previous_compatibility: 'BACKWARD',
        },
        'someone-tenant-audit',
      ],
    ]);
  });

  it("each seeded built-in schema was recorded once in the platform's trail", async () => {
    const seeded = await h.db.prisma.outboxEvent.findMany({
      where: { service: 'schema-registry', tenantId: 'platform', eventType: 'schema_registered', userId: null },
    });
    expect(seeded.map((e) => (e.eventData as { name: string }).name).sort()).toEqual(contractNames());
  });
});

describe('tenant isolation', () => {
  it("another tenant cannot list, read, version, configure or check a tenant's schema (404), and may use the same name", async () => {
    const a = await tenantToken('tenant-a');
    const b = await tenantToken('tenant-b');
    expect(
      (await register(a, 'secret-a', { version: '1.0.0', schema: { title: 'A-SECRET', type: 'object' } })).status,
    ).toBe(201);

    const listB = await call('GET', '/schemas', b);
    expect(JSON.stringify(listB.body)).not.toContain('secret-a');
    expect((await call('GET', '/schemas/secret-a/versions/latest', b)).status).toBe(404);
    expect((await call('GET', '/schemas/secret-a/versions/1.0.0', b)).status).toBe(404);
    expect((await call('GET', '/schemas/secret-a/versions', b)).status).toBe(404);
    expect((await call('PUT', '/schemas/secret-a/compatibility', b, { compatibility: 'NONE' })).status).toBe(404);
    expect((await call('POST', '/schemas/secret-a/compatibility-check', b, { schema: {} })).status).toBe(404);
    // Naming A's tenant is refused outright (the tenant rule), not answered.
    expect((await call('GET', '/schemas/secret-a/versions/latest?tenant_id=tenant-a', b)).status).toBe(403);

    // B's own schema of the same name is B's, and A's is untouched.
    const mine = await register(b, 'secret-a', { version: '5.0.0', schema: { type: 'string' } });
    expect(mine.status).toBe(201);
    expect(mine.body.owner).toBe('tenant-b');
    expect((await call('GET', '/schemas/secret-a/versions', a)).body.versions).toEqual(['1.0.0']);
    expect((await call('GET', '/schemas/secret-a/versions/latest', a)).body.schema.title).toBe('A-SECRET');

    // A platform operator may act in A's tenant (and that access is recorded there).
    const op = await operatorToken();
    expect((await call('GET', '/schemas/secret-a/versions/latest?tenant_id=tenant-a', op)).body.owner).toBe('tenant-a');
    const access = await h.db.prisma.outboxEvent.count({
      where: { tenantId: 'tenant-a', eventType: 'platform_operator_access' },
    });
    expect(access).toBe(1);
  });

  it("pages through a tenant's schemas with next_cursor", async () => {
    const t = await tenantToken('tenant-pages');
    for (const n of ['p1', 'p2', 'p3'])
      expect((await register(t, n, { version: '1.0.0', schema: {} })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await call(
        'GET',
        `/schemas?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        t,
      );
      expect(page.status).toBe(200);
      expect(page.body.schemas.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.schemas.map((s: { name: string }) => s.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...contractNames(), 'p1', 'p2', 'p3'].sort());
  });
});

/** Every built-in name: the contract files' and the event catalogue's (`events.<topic>`). */
function contractNames(): string[] {
  return fs
    .readdirSync(path.join(PROJECT_ROOT, 'platform/contracts'))
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => f.replace(/\.schema\.json$/, ''))
    .concat(EVENT_CATALOGUE.map((c) => `events.${c.topic}`))
    .sort();
}
