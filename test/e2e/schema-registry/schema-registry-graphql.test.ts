// The schema registry through the router (GraphQL over the whole platform): queries, mutations,
// the error codes (BAD_USER_INPUT with extensions.field in GraphQL names, CONFLICT, FORBIDDEN),
// the `Schema` entity, and tenant isolation.
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { DEV, gql as send, startPlatform, tenantToken, type Platform } from '../router/platform.support';

/** The router's answer, its body loosely typed (these tests read errors[0] directly). */
const gql = async (...args: Parameters<typeof send>): Promise<{ status: number; body: any }> => send(...args);

jest.setTimeout(120_000);

let p: Platform;
let admin: string;
let relay: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  p = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10' });
  admin = await p.login(DEV.admin.username, DEV.admin.password);
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: p.db,
    env: p.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
});
afterAll(async () => {
  for (const r of relay) await r.stop();
  await p?.close();
});

const REGISTER = `mutation($name: String!, $version: String!, $definition: JSON!, $kind: SchemaKind, $compatibility: SchemaCompatibility) {
  registerSchema(name: $name, version: $version, definition: $definition, kind: $kind, compatibility: $compatibility) {
    name version kind owner compatibility definition fingerprint createdAt createdBy versions
  }
}`;

const order = {
  type: 'object',
  properties: { total: { type: 'number', minimum: 0 }, currency: { enum: ['EUR', 'USD'] } },
  required: ['total'],
};

it('registers, reads one version and latest, and lists through the router', async () => {
  const reg = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: 'order', version: '1.0.0', definition: order, kind: 'DATA' },
  });
  expect(reg.body.errors).toBeUndefined();
  expect(reg.body.data.registerSchema).toMatchObject({
    name: 'order',
    version: '1.0.0',
    kind: 'DATA',
    owner: 'default',
    compatibility: 'BACKWARD',
    definition: order,
    createdBy: 'admin',
    versions: ['1.0.0'],
  });
  expect(reg.body.data.registerSchema.fingerprint).toMatch(/^[0-9a-f]{64}$/);

  const next = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: {
      name: 'order',
      version: '1.1.0',
      definition: { ...order, properties: { ...order.properties, currency: { enum: ['EUR', 'USD', 'GBP'] } } },
    },
  });
  expect(next.body.errors).toBeUndefined();

  const one = await gql(
    p.gateway,
    '{ schema(name: "order", version: "1.0.0") { version definition versions } latest: schema(name: "order") { version } }',
    { token: admin },
  );
  expect(one.body.errors).toBeUndefined();
  expect(one.body.data).toEqual({
    schema: { version: '1.0.0', definition: order, versions: ['1.0.0', '1.1.0'] },
    latest: { version: '1.1.0' },
  });

  const list = await gql(
    p.gateway,
    '{ schemas(first: 50) { nodes { name version kind owner } pageInfo { hasNextPage endCursor } } }',
    { token: admin },
  );
  expect(list.body.errors).toBeUndefined();
  expect(list.body.data.schemas.nodes).toEqual(
    expect.arrayContaining([
      { name: 'order', version: '1.1.0', kind: 'DATA', owner: 'default' },
      { name: 'rule-pack', version: '1.0.0', kind: 'RULE_PACK', owner: 'platform' },
    ]),
  );
  expect(list.body.data.schemas.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
  const rulePacks = await gql(p.gateway, '{ schemas(kind: RULE_PACK) { nodes { name } } }', { token: admin });
  expect(rulePacks.body.data.schemas.nodes).toEqual([{ name: 'rule-pack' }]);
});

it('pages with first/after', async () => {
  const t = await tenantToken('tenant-gql-pages');
  // Names that sort before every built-in one (`events.<topic>` included).
  for (const name of ['a1', 'a2']) {
    expect(
      (await gql(p.gateway, REGISTER, { token: t, variables: { name, version: '1.0.0', definition: {} } })).body.errors,
    ).toBeUndefined();
  }
  const first = await gql(p.gateway, '{ schemas(first: 1) { nodes { name } pageInfo { hasNextPage endCursor } } }', {
    token: t,
  });
  expect(first.body.data.schemas.nodes).toEqual([{ name: 'a1' }]);
  expect(first.body.data.schemas.pageInfo.hasNextPage).toBe(true);
  const rest = await gql(
    p.gateway,
    'query($after: String) { schemas(first: 50, after: $after) { nodes { name } pageInfo { hasNextPage } } }',
    { token: t, variables: { after: first.body.data.schemas.pageInfo.endCursor } },
  );
  expect(rest.body.data.schemas.nodes.map((n: { name: string }) => n.name)).toEqual(
    expect.arrayContaining(['a2', 'rule-pack']),
  );
  expect(rest.body.data.schemas.nodes.map((n: { name: string }) => n.name)).not.toContain('a1');
  const forged = await gql(p.gateway, '{ schemas(after: "forged") { nodes { name } } }', { token: t });
  expect(forged.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
});

it('compatibility: check without registering, set the mode, and CONFLICT with the reasons', async () => {
  // Narrower than the latest version (1.1.0, which added GBP) in one place only.
  const narrower = {
    ...order,
    properties: { total: { type: 'number', minimum: 10 }, currency: { enum: ['EUR', 'USD', 'GBP'] } },
  };
  const check = await gql(
    p.gateway,
    'mutation($d: JSON!) { checkSchemaCompatibility(name: "order", definition: $d) { compatible reasons } }',
    { token: admin, variables: { d: narrower } },
  );
  expect(check.body.errors).toBeUndefined();
  expect(check.body.data.checkSchemaCompatibility).toEqual({
    compatible: false,
    reasons: [expect.stringMatching(/^#\/properties\/total: minimum 10/)],
  });

  const refused = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: 'order', version: '2.0.0', definition: narrower },
  });
  expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
  expect(refused.body.errors[0].message).toMatch(/not BACKWARD compatible.*#\/properties\/total/);

  const set = await gql(
    p.gateway,
    'mutation { setSchemaCompatibility(name: "order", compatibility: NONE) { name version compatibility } }',
    { token: admin },
  );
  expect(set.body.errors).toBeUndefined();
  expect(set.body.data.setSchemaCompatibility).toEqual({ name: 'order', version: '1.1.0', compatibility: 'NONE' });
  const accepted = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: 'order', version: '2.0.0', definition: narrower },
  });
  expect(accepted.body.errors).toBeUndefined();
  expect(accepted.body.data.registerSchema.compatibility).toBe('NONE');
});

it('bad input is BAD_USER_INPUT with extensions.field in GraphQL names', async () => {
  const notSchema = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: 'bad', version: '1.0.0', definition: { type: 'whatever' } },
  });
  expect(notSchema.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'definition' });
  const version = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: 'bad', version: 'one', definition: {} },
  });
  expect(version.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'version' });
  const name = await gql(p.gateway, REGISTER, {
    token: admin,
    variables: { name: '../etc', version: '1.0.0', definition: {} },
  });
  expect(name.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
  const checkBad = await gql(
    p.gateway,
    'mutation { checkSchemaCompatibility(name: "order", definition: [1]) { compatible } }',
    { token: admin },
  );
  expect(checkBad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'definition' });
});

it('built-in schemas: readable by every tenant, not writable by tenants', async () => {
  const other = await tenantToken('tenant-gql-reader');
  const read = await gql(p.gateway, '{ schema(name: "rule-pack") { owner kind version } }', { token: other });
  expect(read.body.data.schema).toEqual({ owner: 'platform', kind: 'RULE_PACK', version: '1.0.0' });
  const taken = await gql(p.gateway, REGISTER, {
    token: other,
    variables: { name: 'rule-pack', version: '2.0.0', definition: {} },
  });
  expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
  const configure = await gql(
    p.gateway,
    'mutation { setSchemaCompatibility(name: "rule-pack", compatibility: NONE) { name } }',
    { token: other },
  );
  expect(configure.body.errors[0].extensions.code).toBe('FORBIDDEN');
});

it("another tenant sees none of a tenant's schemas, by query or entity reference", async () => {
  const a = await tenantToken('tenant-gql-a');
  const b = await tenantToken('tenant-gql-b');
  expect(
    (
      await gql(p.gateway, REGISTER, {
        token: a,
        variables: { name: 'a-private', version: '1.0.0', definition: { title: 'A-ONLY' } },
      })
    ).body.errors,
  ).toBeUndefined();

  const list = await gql(p.gateway, '{ schemas { nodes { name } } }', { token: b });
  expect(JSON.stringify(list.body)).not.toContain('a-private');
  const one = await gql(p.gateway, '{ schema(name: "a-private") { name definition } }', { token: b });
  expect(one.body).toEqual({ data: { schema: null } });
  const check = await gql(
    p.gateway,
    'mutation { checkSchemaCompatibility(name: "a-private", definition: {}) { compatible } }',
    { token: b },
  );
  expect(check.body.errors[0].extensions.code).toBe('NOT_FOUND');
  const configure = await gql(
    p.gateway,
    'mutation { setSchemaCompatibility(name: "a-private", compatibility: NONE) { name } }',
    { token: b },
  );
  expect(configure.body.errors[0].extensions.code).toBe('NOT_FOUND');
  const named = await gql(p.gateway, '{ schemas(tenantId: "tenant-gql-a") { nodes { name } } }', { token: b });
  expect(named.body.errors[0].extensions.code).toBe('FORBIDDEN');

  // The entity lookup on the subgraph itself answers null for B, the schema for A.
  const entities = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Schema { name definition } } }';
  const variables = { r: [{ __typename: 'Schema', name: 'a-private', version: '1.0.0' }] };
  const asB = await gql(p.urls['schema-registry']!, entities, { token: b, variables });
  expect(asB.body.data._entities).toEqual([null]);
  const asA = await gql(p.urls['schema-registry']!, entities, { token: a, variables });
  expect(asA.body.data._entities).toEqual([{ name: 'a-private', definition: { title: 'A-ONLY' } }]);
});

it("the outbox relay delivers the audit events to the owner's ledger (the built-ins' to `platform`'s)", async () => {
  const t = await tenantToken('tenant-gql-audit');
  expect(
    (
      await gql(p.gateway, REGISTER, {
        token: t,
        variables: { name: 'audited', version: '1.0.0', definition: { type: 'object' } },
      })
    ).body.errors,
  ).toBeUndefined();
  const events = async (tenant: string) => {
    const res = await fetch(`${p.ledger}/events?tenant_id=${tenant}&event_type=schema_registered`, {
      headers: { authorization: `Bearer ${await tenantToken(tenant)}` },
    });
    return ((await res.json()) as { events: { event_data: Record<string, unknown> }[] }).events;
  };
  await until(
    async () => (await events('tenant-gql-audit')).length === 1,
    "schema_registered in tenant-gql-audit's ledger",
  );
  expect((await events('tenant-gql-audit'))[0]!.event_data).toMatchObject({
    name: 'audited',
    version: '1.0.0',
    kind: 'data',
    fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
  await until(
    async () => (await events('platform')).some((e) => e.event_data.name === 'rule-pack'),
    "the seeded rule-pack in platform's ledger",
  );
});
