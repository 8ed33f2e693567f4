// The compliance service's REST door with a real ledger behind it: OSCAL imports (201, 200 for the
// same document, 409 for other content, hostile documents 413/422 with nothing written), signed
// mapping packs (the author cannot certify; the signature verifies against the published keys),
// evidence (content hash in the ledger, an inclusion proof fetched from the ledger's proof route,
// append-only revisions, freshness), the intake (the same event twice is one item, through REST
// and through the events backbone), the auditor role (reads, 403 on every write), and tenancy: another
// tenant sees none of it and cannot name it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { ComplianceClient, complianceUrl } from '../../../platform/clients/compliance.client';
import { ServiceCallError } from '../../../platform/clients/service-request';
import { COMPLIANCE_RULE_EXECUTION, type ComplianceRuleExecution } from '../../../platform/contracts/compliance.events';
import { createEventsStore } from '../../../platform/events/backbone/backbone.store';
import { complianceService } from '../../../services/compliance';
import { ledgerService } from '../../../services/ledger';
import { verifyPack } from '../../../subgraphs/rulepack-registry/pack-signature';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';

jest.setTimeout(120_000);

const FIXTURES = path.resolve(__dirname, '../../../platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as any;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const A = 'comp-a';
const B = 'comp-b';

let h: Harness;
let url: string;
const t: Record<string, string> = {};

async function call(token: string, method: string, p: string, body?: unknown) {
  const res = await fetch(url + p, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
}

function runEvent(tenant: string, overrides: Partial<ComplianceRuleExecution> = {}): ComplianceRuleExecution {
  return {
    rulepack_id: 'kyc',
    rules_executed: 3,
    violations: 0,
    result: 'passed',
    input_sha256: 'a'.repeat(64),
    pack_sha256: 'b'.repeat(64),
    pack_source: 'registry',
    rule_pack_version: '1.0.0',
    validation_type: 'rulepack',
    payload_format: 'json',
    strict_mode: false,
    records: 1,
    tenant_id: tenant,
    user_id: 'alice',
    correlation_id: crypto.randomUUID(),
    occurred_at: new Date().toISOString(),
    ...overrides,
  };
}

beforeAll(async () => {
  const ledgerPort = await freePort();
  h = await startServices(
    [ledgerService, complianceService],
    { REQUIRE_AUTH: 'true', LEDGER_URL: `http://127.0.0.1:${ledgerPort}` },
    { ports: { ledger: ledgerPort } },
  );
  url = h.services.compliance!.url;
  const user = (username: string, tenantId: string, roles: string[], scopes = ['read', 'write']) =>
    tokens.issue({ username, tenantId, roles, scopes });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.audrey = await user('audrey', A, ['auditor'], ['read', 'write']);
  t.bob = await user('bob', B, ['admin']);
  t.service = await tokens.issue({
    username: 'svc-validation',
    tenantId: 'default',
    roles: ['service:validation'],
    scopes: ['write'],
  });
  for (const [p, framework, file] of [
    ['catalogs', 'nist-800-53', 'nist-800-53-rev5-subset.catalog.json'],
    ['profiles', 'nist-800-53-moderate', 'nist-800-53-moderate-subset.profile.json'],
    ['framework-mappings', 'soc2', 'soc2-to-nist-800-53.mapping.json'],
  ] as const) {
    const r = await call(t.alice!, 'POST', `/api/compliance/${p}`, { framework, document: fixture(file) });
    expect([r.status, r.body.framework]).toEqual([201, framework]);
  }
});

afterAll(async () => {
  await h?.close();
});

describe('frameworks', () => {
  it('lists the imports, answers the same document again with 200 and other content under the key with 409', async () => {
    const list = await call(t.alice!, 'GET', '/api/compliance/frameworks');
    expect(list.body.frameworks.map((f: any) => [f.framework, f.kind, f.based_on])).toEqual([
      ['nist-800-53', 'catalog', null],
      ['nist-800-53-moderate', 'profile', 'nist-800-53'],
      ['soc2', 'mapping', 'nist-800-53'],
    ]);
    const again = await call(t.alice!, 'POST', '/api/compliance/catalogs', {
      framework: 'nist-800-53',
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
    expect(again.status).toBe(200);
    const other = fixture('nist-800-53-rev5-subset.catalog.json');
    other.catalog.metadata.version = 'other';
    expect(
      (await call(t.alice!, 'POST', '/api/compliance/catalogs', { framework: 'nist-800-53', document: other })).status,
    ).toBe(409);
  });

  it('serves controls with their freshness; a SOC 2 criterion maps onto 800-53', async () => {
    const r = await call(t.alice!, 'GET', '/api/compliance/frameworks/soc2/controls/CC6.1');
    expect(r.status).toBe(200);
    expect(r.body.maps_to).toContainEqual({ framework: 'nist-800-53', control_id: 'ac-2' });
    expect(r.body.freshness).toMatchObject({ status: 'stale', evidence_count: 0 });
  });

  it('refuses hostile documents with nothing half-applied', async () => {
    const dangling = fixture('nist-800-53-moderate-subset.profile.json');
    dangling.profile.imports[0]['include-controls'][0]['with-ids'].push('zz-404');
    const r = await call(t.alice!, 'POST', '/api/compliance/profiles', { framework: 'broken', document: dangling });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ type: 'dangling_reference' });
    expect(r.body.detail[0].loc.slice(0, 4)).toEqual(['body', 'document', 'profile', 'imports']);

    const invalid = await call(t.alice!, 'POST', '/api/compliance/catalogs', {
      framework: 'broken',
      document: { catalog: { uuid: 'nope' } },
    });
    expect(invalid.status).toBe(422);

    const huge = fixture('nist-800-53-rev5-subset.catalog.json');
    huge.catalog.metadata.remarks = 'x'.repeat(4 * 1024 * 1024);
    expect(
      (await call(t.alice!, 'POST', '/api/compliance/catalogs', { framework: 'broken', document: huge })).status,
    ).toBe(413);

    // The mapping's target must be the tenant's own: B has imported nothing.
    const foreign = await call(t.bob!, 'POST', '/api/compliance/framework-mappings', {
      framework: 'soc2',
      document: fixture('soc2-to-nist-800-53.mapping.json'),
    });
    expect(foreign.status).toBe(422);
    expect((await call(t.alice!, 'GET', '/api/compliance/frameworks/broken')).status).toBe(404);
    expect((await call(t.bob!, 'GET', '/api/compliance/frameworks')).body.frameworks).toEqual([]);
  });
});

describe('mapping packs', () => {
  it('are drafted, certified by a second person (never the author) and signed with a published key', async () => {
    const pack = fixture('platform-events.mapping-pack.json');
    const submitted = await call(t.alice!, 'POST', '/api/compliance/mapping-packs', { pack });
    expect([submitted.status, submitted.body.status]).toEqual([201, 'draft']);
    expect((await call(t.alice!, 'POST', '/api/compliance/mapping-packs', { pack })).status).toBe(200);

    const byAuthor = await call(
      t.alice!,
      'POST',
      '/api/compliance/mapping-packs/platform-events-800-53/versions/1.0.0/certify',
      {},
    );
    expect(byAuthor.status).toBe(403);
    const certified = await call(
      t.rita!,
      'POST',
      '/api/compliance/mapping-packs/platform-events-800-53/versions/1.0.0/certify',
      {},
    );
    expect(certified.status).toBe(200);
    expect(certified.body).toMatchObject({ status: 'certified', certified_by: 'rita' });

    const keys = await fetch(`${url}/api/compliance/mapping-pack-keys`).then((r) => r.json() as Promise<any>);
    const key = keys.keys.find((k: any) => k.kid === certified.body.key_id);
    expect(verifyPack(certified.body.pack, certified.body.signature, key)).toBe(true);
    expect(verifyPack({ ...certified.body.pack, mappings: [] }, certified.body.signature, key)).toBe(false);
  });

  it("refuses a pack naming controls the tenant lacks (another tenant's included), and hides packs across tenants", async () => {
    const pack = fixture('platform-events.mapping-pack.json');
    const r = await call(t.bob!, 'POST', '/api/compliance/mapping-packs', { pack });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({
      loc: ['body', 'pack', 'mappings', 0, 'controls', 0],
      type: 'dangling_reference',
    });
    expect(
      (await call(t.bob!, 'GET', '/api/compliance/mapping-packs/platform-events-800-53/versions/1.0.0')).status,
    ).toBe(404);
    expect((await call(t.bob!, 'GET', `/api/compliance/mapping-packs?tenant_id=${A}`)).status).toBe(403);
    const bad = await call(t.alice!, 'POST', '/api/compliance/mapping-packs', {
      pack: { metadata: pack.metadata, mappings: [] },
    });
    expect(bad.status).toBe(422);
  });
});

describe('intake and evidence', () => {
  let itemId: string;

  it('takes the same event twice as one evidence item, mapped by the certified pack', async () => {
    const event = { id: 'evt-1', topic: COMPLIANCE_RULE_EXECUTION.topic, data: runEvent(A) };
    const first = await call(t.alice!, 'POST', '/api/compliance/events', event);
    expect(first.status).toBe(201);
    expect(first.body.controls).toEqual(
      expect.arrayContaining([
        { framework: 'nist-800-53', control_id: 'si-10' },
        { framework: 'nist-800-53', control_id: 'au-2' },
      ]),
    );
    const second = await call(t.alice!, 'POST', '/api/compliance/events', event);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ created: false, item_id: first.body.item_id });
    itemId = first.body.item_id;
    const list = await call(t.alice!, 'GET', '/api/compliance/evidence?framework=nist-800-53&control_id=si-10');
    expect(list.body.items.map((i: any) => i.id)).toEqual([itemId]);
    // Another tenant's event cannot be handed in by a tenant's caller.
    expect((await call(t.bob!, 'POST', '/api/compliance/events', { ...event, data: runEvent(A) })).status).toBe(403);
  });

  it('takes a run from the events backbone, and the same event again by REST, as one evidence item', async () => {
    // As validation's notice relay does: the run appended to the tenant's stream of the topic.
    const payload = runEvent(A, { rulepack_id: 'aml' });
    const id = crypto.randomUUID();
    const stored = await createEventsStore(h.db.sql).publish(
      A,
      {
        id,
        tenantId: A,
        topic: COMPLIANCE_RULE_EXECUTION.topic,
        source: '/services/validation',
        type: COMPLIANCE_RULE_EXECUTION.topic,
        time: new Date().toISOString(),
        subject: 'aml',
        traceparent: null,
        data: payload,
        size: 500,
      },
      1e12,
    );
    expect(stored.kind).toBe('stored');
    const items = async () =>
      (await call(t.alice!, 'GET', '/api/compliance/evidence?framework=nist-800-53')).body.items.filter(
        (i: any) => i.revisions[0].content.data.rulepack_id === 'aml',
      );
    await until(async () => (await items()).length === 1, 'the backbone event to become evidence');
    const again = await call(t.alice!, 'POST', '/api/compliance/events', {
      id,
      topic: COMPLIANCE_RULE_EXECUTION.topic,
      data: payload,
    });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(await items()).toHaveLength(1);
  });

  it('records each revision in the ledger and proves it against a signed checkpoint', async () => {
    const item = await call(t.alice!, 'GET', `/api/compliance/evidence/${itemId}`);
    const [rev] = item.body.revisions;
    expect(rev.ledger_entry_id).toMatch(/^[0-9a-f-]{36}$/);
    const proof = await call(t.alice!, 'GET', `/api/compliance/evidence/${itemId}/proof`);
    expect(proof.status).toBe(200);
    expect(proof.body.ledger.entry).toMatchObject({ id: rev.ledger_entry_id, event_type: 'compliance_evidence' });
    expect(proof.body.ledger.entry.event_data.content_sha256).toBe(rev.content_sha256);
    expect(proof.body.ledger.checkpoint.signature).toEqual(expect.any(String));
  });

  it('uploads evidence, appends revisions (keeping the old ones) and makes the control fresh', async () => {
    const added = await call(t.alice!, 'POST', '/api/compliance/evidence', {
      controls: [{ framework: 'nist-800-53', control_id: 'cm-2' }],
      content: { baseline: 'v1' },
      source: 'config-export',
    });
    expect(added.status).toBe(201);
    const revised = await call(t.alice!, 'POST', `/api/compliance/evidence/${added.body.id}/revisions`, {
      content: { baseline: 'v2' },
    });
    expect([revised.status, revised.body.detail]).toEqual([201, undefined]);
    expect(revised.body.revisions.map((r: any) => [r.revision, r.content.baseline])).toEqual([
      [2, 'v2'],
      [1, 'v1'],
    ]);
    expect(revised.body.revisions[1].content_sha256).toBe(added.body.revisions[0].content_sha256);
    // cm-2 backs SOC 2 CC8.1 and the moderate profile's cm-2.
    for (const p of [
      '/api/compliance/frameworks/soc2/controls/CC8.1',
      '/api/compliance/frameworks/nist-800-53-moderate/controls/cm-2',
    ])
      expect((await call(t.alice!, 'GET', p)).body.freshness).toMatchObject({ status: 'fresh', evidence_count: 1 });
    const unknown = await call(t.alice!, 'POST', '/api/compliance/evidence', {
      controls: [{ framework: 'nist-800-53', control_id: 'zz-1' }],
      content: {},
    });
    expect([unknown.status, unknown.body.detail[0].type]).toEqual([422, 'dangling_reference']);
  });

  it('pages evidence by period', async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call(t.alice!, 'GET', `/api/compliance/evidence?from=${future}`)).body.items).toEqual([]);
    const page = await call(t.alice!, 'GET', '/api/compliance/evidence?limit=1');
    expect(page.body.items).toHaveLength(1);
    const next = await call(t.alice!, 'GET', `/api/compliance/evidence?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.body.items[0].id).not.toBe(page.body.items[0].id);
    expect((await call(t.alice!, 'GET', '/api/compliance/evidence?cursor=forged')).status).toBe(422);
  });

  it('shows another tenant nothing: 404 by id, empty lists, 403 naming the tenant', async () => {
    expect((await call(t.bob!, 'GET', `/api/compliance/evidence/${itemId}`)).status).toBe(404);
    expect((await call(t.bob!, 'GET', `/api/compliance/evidence/${itemId}/proof`)).status).toBe(404);
    expect((await call(t.bob!, 'POST', `/api/compliance/evidence/${itemId}/revisions`, { content: {} })).status).toBe(
      404,
    );
    expect((await call(t.bob!, 'GET', '/api/compliance/evidence')).body.items).toEqual([]);
    expect((await call(t.bob!, 'GET', '/api/compliance/frameworks/nist-800-53/controls')).status).toBe(404);
    expect((await call(t.bob!, 'GET', `/api/compliance/evidence?tenant_id=${A}`)).status).toBe(403);
    expect((await call(t.bob!, 'GET', `/api/compliance/frameworks?tenant_id=${A}`)).status).toBe(403);
  });
});

describe('the auditor role', () => {
  it('reads everything of its tenant and changes nothing (403), whatever its scopes', async () => {
    expect((await call(t.audrey!, 'GET', '/api/compliance/frameworks')).status).toBe(200);
    expect((await call(t.audrey!, 'GET', '/api/compliance/evidence')).status).toBe(200);
    expect((await call(t.audrey!, 'GET', '/api/compliance/mapping-packs')).status).toBe(200);
    const writes: [string, unknown][] = [
      ['/api/compliance/catalogs', { framework: 'x', document: fixture('nist-800-53-rev5-subset.catalog.json') }],
      ['/api/compliance/evidence', { controls: [{ framework: 'nist-800-53', control_id: 'ac-2' }], content: {} }],
      ['/api/compliance/mapping-packs', { pack: fixture('platform-events.mapping-pack.json') }],
      ['/api/compliance/events', { id: 'evt-aud', topic: COMPLIANCE_RULE_EXECUTION.topic, data: runEvent(A) }],
    ];
    for (const [p, body] of writes) expect([p, (await call(t.audrey!, 'POST', p, body)).status]).toEqual([p, 403]);
  });
});

describe('the typed client', () => {
  it('finds the service by PLATFORM_COMPLIANCE_URL and submits idempotently with a service account', async () => {
    expect(complianceUrl({ PLATFORM_COMPLIANCE_URL: url })).toBe(url);
    expect(complianceUrl({})).toBe('http://127.0.0.1:8135');
    const client = new ComplianceClient(complianceUrl({ PLATFORM_COMPLIANCE_URL: url }));
    const event = { id: 'evt-client', topic: COMPLIANCE_RULE_EXECUTION.topic, data: { ...runEvent(A) } };
    const first = await client.submitEvent({ token: t.service }, event);
    const second = await client.submitEvent({ token: t.service }, event);
    expect([first.created, second.created, second.item_id]).toEqual([true, false, first.item_id]);
    const page = await client.evidence({ token: t.alice }, { framework: 'nist-800-53', control_id: 'au-12' });
    expect(page.items.map((i) => i.id)).toContain(first.item_id);
    await expect(client.submitEvent({ token: t.service }, { ...event, topic: 'nope' })).rejects.toMatchObject({
      status: 422,
    } satisfies Partial<ServiceCallError>);
  });
});
