// The validation service's REST door over real HTTP, against a stand-in rule-pack registry that
// signs with a real Ed25519 key pair and a stand-in schema registry: certified, tampered,
// deprecated, draft, unknown and unreachable packs; inline packs; JSON, CSV and XML payloads;
// strict mode; PII never echoed; limits (413, 422) after which the service keeps serving; the
// audit event in the outbox and the compliance notice (notice outbox, relayed to the bus).
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import type { EventBus } from '../../../platform/events/event-bus';
import { defineValidationService } from '../../../services/validation';
import { COMPLIANCE_RULE_EXECUTION } from '../../../platform/contracts/compliance.events';
import { RULEPACK_DEPRECATED, type RulePackNotice } from '../../../platform/contracts/rulepack.events';
import { startNoticeRelay, type NoticeRelay } from '../../../platform/outbox/notice-relay';
import { pendingNotice, sqlInsertNotices } from '../../../platform/outbox/notice.writer';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { tenantToken } from '../router/platform.support';
import { BAD_RECORD, CHATTY_PACK, GOOD_RECORD, KYC_PACK, KYC_PACK_V2, PII } from './support/packs';
import { startRulePackRegistry, type RulePackRegistryStandIn } from './support/rulepack-registry.stand-in';
import { BUILT_IN, startSchemaRegistry } from './support/schema-registry.stand-in';

jest.setTimeout(120_000);

const MAX_PAYLOAD = 64 * 1024;
/** The platform's limit on one JSON string elsewhere; payloads may be longer. */
const STRING_LIMIT = 4096;
let h: Harness;
let url: string;
let registry: RulePackRegistryStandIn;
let schemas: Awaited<ReturnType<typeof startSchemaRegistry>>;
let bus: EventBus;
/** The rule-pack registry's relay: its notices reach validation through the backbone. */
let registryRelay: NoticeRelay;
const compliance: any[] = [];
let token: string;
let readOnly: string;

beforeAll(async () => {
  registry = await startRulePackRegistry();
  schemas = await startSchemaRegistry();
  bus = createMemoryEventBus();
  await bus.subscribe(COMPLIANCE_RULE_EXECUTION.topic, (e) => void compliance.push(e));
  h = await startServices([defineValidationService({ bus })], {
    RULEPACK_REGISTRY_URL: registry.url,
    SCHEMA_REGISTRY_URL: schemas.url,
    VALIDATION_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD),
    VALIDATION_MAX_RECORDS: '50',
    JSON_MAX_STRING_LENGTH: String(STRING_LIMIT),
  });
  url = h.services.validation!.url;
  registryRelay = startNoticeRelay({
    db: h.db,
    bus,
    logger: { warn: () => {}, info: () => {} },
    services: ['rulepack-registry'],
    pollMs: 50,
  });
  token = await tenantToken('default');
  readOnly = await tenantToken('default', ['read']);

  registry.put({ pack_id: 'kyc-basic', version: '1.0.0', status: 'certified', pack: KYC_PACK });
  registry.put({ pack_id: 'kyc-basic', version: '2.0.0', status: 'certified', pack: KYC_PACK_V2 });
  registry.put({ pack_id: 'chatty', version: '0.1.0', status: 'certified', pack: CHATTY_PACK });
  registry.put({
    pack_id: 'old-pack',
    version: '1.0.0',
    status: 'deprecated',
    pack: { ...KYC_PACK, metadata: { pack_id: 'old-pack', version: '1.0.0' } },
    replacement: { pack_id: 'kyc-basic', version: '2.0.0' },
  });
  registry.put({
    pack_id: 'drafty',
    version: '0.1.0',
    status: 'draft',
    pack: { ...KYC_PACK, metadata: { pack_id: 'drafty', version: '0.1.0' } },
  });
  registry.put({
    pack_id: 'in-review',
    version: '0.1.0',
    status: 'review',
    pack: { ...KYC_PACK, metadata: { pack_id: 'in-review', version: '0.1.0' } },
  });
  for (const tamper of ['content', 'foreign-key', 'unknown-kid', 'no-signature'] as const) {
    registry.put({
      pack_id: `tampered-${tamper}`,
      version: '1.0.0',
      status: 'certified',
      pack: { ...KYC_PACK, metadata: { pack_id: `tampered-${tamper}`, version: '1.0.0' } },
      tamper,
    });
  }
});
afterAll(async () => {
  await registryRelay?.stop();
  await h?.close();
  await bus?.close();
  await registry?.close();
  await schemas?.close();
});

async function post(
  body: unknown,
  options: { token?: string | null; headers?: Record<string, string>; raw?: string } = {},
) {
  const auth: Record<string, string> =
    options.token === null ? {} : { authorization: `Bearer ${options.token ?? token}` };
  const res = await fetch(`${url}/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth, ...options.headers },
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

async function outboxEvents(): Promise<
  {
    event_type: string;
    tenant_id: string;
    event_data: any;
    user_id: string | null;
    correlation_id: string | null;
    idempotency_key: string;
  }[]
> {
  const r = await h.db.sql.query<any>(
    `SELECT event_type, tenant_id, event_data, user_id, correlation_id, idempotency_key FROM outbox_events WHERE service = 'validation' ORDER BY outbox_events.id`,
  );
  return r.rows.map((row) => ({
    ...row,
    event_data: typeof row.event_data === 'string' ? JSON.parse(row.event_data) : row.event_data,
  }));
}

/** The service answers a plain run after whatever the test did to it. */
async function stillServing() {
  const r = await post({ rule_pack: KYC_PACK, payload: GOOD_RECORD });
  expect(r.status).toBe(200);
  expect(r.body.result.valid).toBe(true);
}

describe('registry packs', () => {
  it("runs a certified pack: a valid record passes, with the spec's response fields", async () => {
    const r = await post({
      rule_pack_id: 'kyc-basic',
      rule_pack_version: '1.0.0',
      payload: GOOD_RECORD,
      validation_type: 'standard',
      strict_mode: false,
      metadata: { source: 'test' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rule_pack_version: '1.0.0', rule_pack_id: 'kyc-basic', pack_source: 'registry' });
    expect(r.body.result).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(Object.keys(r.body.result.rule_results).sort()).toEqual(['R1', 'R2', 'R3', 'R4']);
    expect(typeof r.body.correlation_id).toBe('string');
    expect(typeof r.body.execution_time_ms).toBe('number');
    expect(r.body.pack_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.input_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports an invalid record's violations by severity, without echoing its values", async () => {
    const r = await post({ rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0', payload: BAD_RECORD });
    expect(r.status).toBe(200);
    expect(r.body.result.valid).toBe(false);
    expect(r.body.result.errors.map((e: any) => e.rule_id).sort()).toEqual(['R1', 'R2']);
    expect(r.body.result.errors[0]).toEqual(
      expect.objectContaining({ severity: 'FATAL', field: expect.any(String), message: expect.any(String) }),
    );
    expect(r.body.result.errors[0].row).toBeUndefined();
    expect(r.body.result.warnings).toEqual([
      expect.objectContaining({ rule_id: 'R3', severity: 'WARNING', field: 'amount', message: 'Amount out of range' }),
    ]);
    for (const secret of [PII.email, PII.ssn, 'alice.secret']) expect(r.text).not.toContain(secret);
  });

  it("forwards the caller's bearer token and tenant to the registry", async () => {
    const other = await tenantToken('tenant-fwd');
    registry.seen.length = 0;
    // No version: the registry is asked for the newest certified one every time.
    const r = await post({ rule_pack_id: 'kyc-basic', payload: GOOD_RECORD }, { token: other });
    expect(r.status).toBe(200);
    expect(r.body.rule_pack_version).toBe('2.0.0');
    const asked = registry.seen.find((s) => s.path === '/rulepacks/kyc-basic')!;
    expect(asked).toEqual({ path: '/rulepacks/kyc-basic', authorization: `Bearer ${other}`, tenant: 'tenant-fwd' });
  });

  it('caches a compiled certified version: the registry is not asked again for it', async () => {
    await post({ rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0', payload: GOOD_RECORD });
    registry.seen.length = 0;
    for (let i = 0; i < 3; i++)
      expect((await post({ rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0', payload: GOOD_RECORD })).status).toBe(
        200,
      );
    expect(registry.seen).toEqual([]);
  });

  /** What the rule-pack registry does on a deprecation: a notice in its outbox, committed with the change. */
  async function deprecated(notice: RulePackNotice, tenantId = 'default') {
    await h.db.sql.transaction((q) =>
      sqlInsertNotices(q, [
        pendingNotice('rulepack-registry', RULEPACK_DEPRECATED, notice, {
          tenantId,
          subject: `${notice.pack_id}@${notice.version}`,
        }),
      ]),
    );
    registryRelay.wake();
  }

  it('drops a cached version on rulepack.deprecated from the backbone: the next run is refused with the replacement named', async () => {
    registry.put({ pack_id: 'chatty', version: '0.1.0', status: 'certified', pack: CHATTY_PACK });
    expect((await post({ rule_pack_id: 'chatty', rule_pack_version: '0.1.0', payload: GOOD_RECORD })).status).toBe(200);
    registry.put({
      pack_id: 'chatty',
      version: '0.1.0',
      status: 'deprecated',
      pack: CHATTY_PACK,
      replacement: { pack_id: 'kyc-basic', version: '2.0.0' },
    });
    // Still cached: certified versions are immutable, only the event says otherwise.
    expect((await post({ rule_pack_id: 'chatty', rule_pack_version: '0.1.0', payload: GOOD_RECORD })).status).toBe(200);
    // From another tenant's stream: a certified pack runs in every tenant, so every deprecation counts.
    await deprecated(
      {
        pack_id: 'chatty',
        version: '0.1.0',
        owner_tenant: 'pack-owner',
        replacement: { pack_id: 'kyc-basic', version: '2.0.0' },
      },
      'pack-owner',
    );
    await until(
      async () =>
        (await post({ rule_pack_id: 'chatty', rule_pack_version: '0.1.0', payload: GOOD_RECORD })).status === 409,
      'the cache to drop the deprecated pack',
    );
    const r = await post({ rule_pack_id: 'chatty', rule_pack_version: '0.1.0', payload: GOOD_RECORD });
    expect(r.body.detail).toBe(
      "Rule pack 'chatty' version '0.1.0' is deprecated; use rule pack 'kyc-basic' version '2.0.0' instead",
    );
    // The notice went through the backbone: stored once in the owner's stream.
    const stored = await h.db.sql.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM event_records WHERE tenant_id = 'pack-owner' AND topic = 'rulepack.deprecated'`,
    );
    expect(stored.rows[0]!.n).toBe('1');
    registry.put({ pack_id: 'chatty', version: '0.1.0', status: 'certified', pack: CHATTY_PACK });
    await deprecated({ pack_id: 'chatty', version: '0.1.0', owner_tenant: 'default', replacement: null });
  });

  it('refuses deprecated (naming the replacement), draft and in-review packs with 409', async () => {
    const deprecated = await post({ rule_pack_id: 'old-pack', rule_pack_version: '1.0.0', payload: GOOD_RECORD });
    expect(deprecated.status).toBe(409);
    expect(deprecated.body.detail).toContain("use rule pack 'kyc-basic' version '2.0.0'");
    for (const id of ['drafty', 'in-review']) {
      const r = await post({ rule_pack_id: id, rule_pack_version: '0.1.0', payload: GOOD_RECORD });
      expect({ id, status: r.status }).toEqual({ id, status: 409 });
      expect(r.body.detail).toMatch(/is not certified \(status '(draft|review)'\); only certified packs run/);
    }
  });

  it("answers 404 for an unknown pack or version, and for another tenant's draft", async () => {
    expect((await post({ rule_pack_id: 'no-such-pack', payload: GOOD_RECORD })).status).toBe(404);
    const v = await post({ rule_pack_id: 'kyc-basic', rule_pack_version: '9.9.9', payload: GOOD_RECORD });
    expect(v.status).toBe(404);
    expect(v.body.detail).toBe("Rule pack 'kyc-basic' version '9.9.9' not found");
    const foreign = await post(
      { rule_pack_id: 'drafty', rule_pack_version: '0.1.0', payload: GOOD_RECORD },
      { token: await tenantToken('tenant-else') },
    );
    expect(foreign.status).toBe(404);
  });

  it('never runs a pack whose signature does not verify (409), and audits nothing for it', async () => {
    const before = (await outboxEvents()).length;
    const complianceBefore = compliance.length;
    const reasons: Record<string, RegExp> = {
      content: /signature does not match its content/,
      'foreign-key': /signature does not match its content/,
      'unknown-kid': /signing key 'nobody-published-this' is not published/,
      'no-signature': /carries no signature/,
    };
    for (const [tamper, reason] of Object.entries(reasons)) {
      const r = await post({ rule_pack_id: `tampered-${tamper}`, rule_pack_version: '1.0.0', payload: BAD_RECORD });
      expect({ tamper, status: r.status }).toEqual({ tamper, status: 409 });
      expect(r.body.detail).toMatch(/failed signature verification/);
      expect(r.body.detail).toMatch(reason);
      expect(r.body.detail).toMatch(/it was not run$/);
      expect(r.body.result).toBeUndefined();
    }
    expect((await outboxEvents()).length).toBe(before);
    expect(compliance.length).toBe(complianceBefore);
  });

  it('answers 503 while the registry is unreachable, and recovers', async () => {
    registry.outage = true;
    try {
      const r = await post({ rule_pack_id: 'kyc-basic', payload: GOOD_RECORD });
      expect(r.status).toBe(503);
      expect(r.body.detail).toBe('The rule-pack registry is unavailable, retry shortly');
      // Inline packs need no registry.
      await stillServing();
    } finally {
      registry.outage = false;
    }
    expect((await post({ rule_pack_id: 'kyc-basic', payload: GOOD_RECORD })).status).toBe(200);
  });
});

describe('inline packs', () => {
  it("runs the caller's own pack, identified by its metadata and SHA-256", async () => {
    const r = await post({ rule_pack: KYC_PACK, payload: [GOOD_RECORD, BAD_RECORD] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ pack_source: 'inline', rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0' });
    expect(r.body.result.valid).toBe(false);
    expect(r.body.result.errors.every((e: any) => e.row === 1)).toBe(true);
    const noMeta = await post({ rule_pack: { metadata: {}, rules: KYC_PACK.rules }, payload: GOOD_RECORD });
    expect(noMeta.status).toBe(200);
    expect(noMeta.body.rule_pack_version).toBeNull();
    expect(noMeta.body.rule_pack_id).toBe(`inline:${noMeta.body.pack_sha256}`);
  });

  it('reports a pack that does not compile as 422 under body.rule_pack, naming where', async () => {
    const bad = { metadata: {}, rules: [{ ...KYC_PACK.rules[0], operator: 'eval' }] };
    const r = await post({ rule_pack: bad, payload: GOOD_RECORD });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc.slice(0, 4)).toEqual(['body', 'rule_pack', 'rules', 0]);
    const noRules = await post({ rule_pack: { metadata: {} }, payload: GOOD_RECORD });
    expect(noRules.status).toBe(422);
    expect(noRules.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'rule_pack']);
  });

  it('needs exactly one of rule_pack_id and rule_pack (422 naming both)', async () => {
    for (const body of [
      { payload: GOOD_RECORD },
      { rule_pack_id: 'kyc-basic', rule_pack: KYC_PACK, payload: GOOD_RECORD },
    ]) {
      const r = await post(body);
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toEqual([
        ['body', 'rule_pack_id'],
        ['body', 'rule_pack'],
      ]);
    }
    const versioned = await post({ rule_pack: KYC_PACK, rule_pack_version: '1.0.0', payload: GOOD_RECORD });
    expect(versioned.status).toBe(422);
    expect(versioned.body.detail[0].loc).toEqual(['body', 'rule_pack_version']);
  });
});

describe('payload formats', () => {
  const CSV_PACK = {
    metadata: { pack_id: 'csv-pack', version: '1' },
    rules: [
      { rule_id: 'ID', type: 'FATAL', field: 'id', operator: 'required', error_message: 'id is required' },
      {
        rule_id: 'AMT',
        type: 'WARNING',
        field: 'amount',
        operator: '<=',
        value: 100,
        error_message: 'amount above 100',
      },
    ],
  };

  it('CSV: every row is a record, and failures name their row', async () => {
    const csv = 'id,amount\n1,50\n,20\n3,500\n4,10\n';
    const r = await post({ rule_pack: CSV_PACK, payload: csv, payload_format: 'csv' });
    expect(r.status).toBe(200);
    expect(r.body.result.errors).toEqual([expect.objectContaining({ rule_id: 'ID', row: 1 })]);
    expect(r.body.result.warnings).toEqual([expect.objectContaining({ rule_id: 'AMT', row: 2 })]);
    expect(r.body.result.metadata.records).toBe(4);
  });

  it('CSV: a ragged row is a 422 naming payload', async () => {
    const r = await post({ rule_pack: CSV_PACK, payload: 'id,amount\n1,50\n2,20,extra\n', payload_format: 'csv' });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc[0]).toBe('body');
    expect(r.body.detail[0].loc[1]).toBe('payload');
    await stillServing();
  });

  it('XML: records are read from the document', async () => {
    const xml =
      '<records><record><id>1</id><amount>50</amount></record><record><amount>500</amount></record></records>';
    const r = await post({ rule_pack: CSV_PACK, payload: xml, payload_format: 'xml' });
    expect(r.status).toBe(200);
    expect(r.body.result.metadata.records).toBe(2);
    expect(r.body.result.errors).toEqual([expect.objectContaining({ rule_id: 'ID', row: 1 })]);
  });

  it('XML: a DOCTYPE or entity (billion laughs, external entity) is a 422 naming payload, and the service keeps serving', async () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><records><record><id>&lol3;</id></record></records>';
    const external =
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><records><record><id>&xxe;</id></record></records>';
    for (const xml of [laughs, external]) {
      const r = await post({ rule_pack: CSV_PACK, payload: xml, payload_format: 'xml' });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'payload']);
      expect(r.text).not.toContain('root:');
    }
    const broken = await post({ rule_pack: CSV_PACK, payload: '<records><record>', payload_format: 'xml' });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'payload']);
    await stillServing();
  });

  it('refuses a payload of the wrong kind for its format, and a missing payload, naming payload', async () => {
    const missing = await post({ rule_pack: KYC_PACK });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ['body', 'payload'], msg: 'Field required', type: 'missing' }]);
    for (const body of [
      { rule_pack: KYC_PACK, payload: 'text' },
      { rule_pack: KYC_PACK, payload: { a: 1 }, payload_format: 'csv' },
      { rule_pack: KYC_PACK, payload: GOOD_RECORD, payload_format: 'yaml' },
    ]) {
      const r = await post(body);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe('body');
    }
  });
});

describe('strict mode', () => {
  it('warnings fail the run only in strict mode', async () => {
    const record = { ...GOOD_RECORD, amount: 20000 };
    const lax = await post({ rule_pack: KYC_PACK, payload: record });
    expect(lax.body.result).toMatchObject({ valid: true, errors: [] });
    expect(lax.body.result.warnings).toHaveLength(1);
    const strict = await post({ rule_pack: KYC_PACK, payload: record, strict_mode: true });
    expect(strict.status).toBe(200);
    expect(strict.body.result.valid).toBe(false);
  });
});

describe('PII', () => {
  it("a pack's messages are redacted, and no payload value is echoed", async () => {
    const r = await post({
      rule_pack_id: 'chatty',
      rule_pack_version: '0.1.0',
      payload: [BAD_RECORD, { ...BAD_RECORD, ssn: '123-45-6789' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.result.errors).toHaveLength(2);
    for (const secret of [PII.email, PII.ssn, '123-45-6789', PII.cardMessage]) expect(r.text).not.toContain(secret);
    const inline = await post({ rule_pack: CHATTY_PACK, payload: BAD_RECORD });
    for (const secret of [PII.email, PII.ssn, PII.cardMessage]) expect(inline.text).not.toContain(secret);
  });
});

describe('limits', () => {
  it('413 above VALIDATION_MAX_PAYLOAD_BYTES, and the service keeps serving', async () => {
    const big = 'id,amount\n' + '1,2\n'.repeat(MAX_PAYLOAD / 4);
    const r = await post({ rule_pack: KYC_PACK, payload: big, payload_format: 'csv' });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ detail: 'Request body too large' });
    await stillServing();
  });

  it("a payload string longer than the platform's JSON string limit (JSON_MAX_STRING_LENGTH) but within the payload limit is accepted", async () => {
    const rows = 'id,amount\n' + Array.from({ length: 45 }, (_, i) => `${i + 1},${'9'.repeat(100)}`).join('\n');
    expect(rows.length).toBeGreaterThan(STRING_LIMIT);
    const r = await post({ rule_pack: KYC_PACK, payload: rows, payload_format: 'csv' });
    expect(r.status).toBe(200);
    expect(r.body.result.metadata.records).toBe(45);
  });

  it('too many records is a 422 naming payload', async () => {
    const r = await post({ rule_pack: KYC_PACK, payload: Array.from({ length: 51 }, () => GOOD_RECORD) });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'payload']);
    await stillServing();
  });

  it('malformed JSON and hostile bodies are 422s, never 500s', async () => {
    expect((await post(null, { raw: '{"rule_pack":' })).status).toBe(422);
    expect((await post(null, { raw: '{"__proto__":{"x":1},"payload":{}}' })).status).toBe(422);
    const deep = await post({ rule_pack: KYC_PACK, payload: JSON.parse('['.repeat(70) + ']'.repeat(70)) });
    expect(deep.status).toBe(422);
    await stillServing();
  });
});

describe('audit', () => {
  it('writes one rule_execution event per run to the outbox, with digests and counts only', async () => {
    const before = (await outboxEvents()).length;
    const complianceBefore = compliance.length;
    const r = await post(
      { rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0', payload: BAD_RECORD, validation_type: 'kyc' },
      { headers: { 'x-correlation-id': 'corr-audit-1' } },
    );
    expect(r.status).toBe(200);
    const events = (await outboxEvents()).slice(before);
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e).toMatchObject({
      event_type: 'rule_execution',
      tenant_id: 'default',
      user_id: 'someone-default',
      correlation_id: r.body.correlation_id,
    });
    expect(e!.event_data).toEqual({
      rulepack_id: 'kyc-basic',
      rules_executed: 4,
      violations: 3,
      result: 'failed',
      input_sha256: r.body.input_sha256,
      pack_sha256: r.body.pack_sha256,
      pack_source: 'registry',
      rule_pack_version: '1.0.0',
      validation_type: 'kyc',
      payload_format: 'json',
      strict_mode: false,
      records: 1,
    });
    for (const secret of [PII.email, PII.ssn, 'alice.secret']) expect(JSON.stringify(events)).not.toContain(secret);
    // Relayed from the notice outbox: a CloudEvents 1.0 envelope around the contract's payload. The
    // relay publishes subjects in parallel, so an earlier run's notice may land after this one's:
    // find this run's by its correlation id.
    const mine = () => compliance.slice(complianceBefore).find((c) => c.data?.correlation_id === r.body.correlation_id);
    await until(() => mine() !== undefined, 'the compliance event');
    expect(mine()).toMatchObject({
      specversion: '1.0',
      type: COMPLIANCE_RULE_EXECUTION.topic,
      source: 'urn:platform:service:validation',
      tenantid: 'default',
      // The run is the subject (runs of one pack are not ordered against each other).
      subject: `rulepack/${e!.event_data.rulepack_id}/runs/${e!.idempotency_key}`,
      traceparent: expect.stringMatching(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/),
      data: {
        ...e!.event_data,
        tenant_id: 'default',
        user_id: 'someone-default',
        correlation_id: r.body.correlation_id,
      },
    });
  });

  it('the input digest is over canonical JSON: key order does not change it', async () => {
    const a = await post({ rule_pack: KYC_PACK, payload: { b: 1, a: 2 } });
    const b = await post(null, { raw: `{"rule_pack":${JSON.stringify(KYC_PACK)},"payload":{"a":2.0,"b":1}}` });
    expect(a.body.input_sha256).toBe(b.body.input_sha256);
  });
});

describe('auth and tenancy', () => {
  it('401 without a token, 403 without the write scope, 403 naming another tenant', async () => {
    const anon = await post({ rule_pack: KYC_PACK, payload: GOOD_RECORD }, { token: null });
    expect(anon.status).toBe(401);
    expect((await post({ rule_pack: KYC_PACK, payload: GOOD_RECORD }, { token: readOnly })).status).toBe(403);
    const other = await post(
      { rule_pack: KYC_PACK, payload: GOOD_RECORD },
      { headers: { 'x-tenant-id': 'someone-else' } },
    );
    expect(other.status).toBe(403);
  });
});

describe('schemas and health', () => {
  it("GET /schemas lists the schema registry's schemas, forwarding the caller", async () => {
    schemas.seen.length = 0;
    const res = await fetch(`${url}/schemas?kind=rule-pack`, { headers: { authorization: `Bearer ${readOnly}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ schemas: BUILT_IN.filter((s) => s.kind === 'rule-pack') });
    expect(schemas.seen).toEqual([
      { path: '/schemas?kind=rule-pack', authorization: `Bearer ${readOnly}`, tenant: 'default' },
    ]);
  });

  it('GET /schemas/{name} gives one version (latest by default); 404 for an unknown one', async () => {
    const res = await fetch(`${url}/schemas/rule-pack`, { headers: { authorization: `Bearer ${readOnly}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: 'rule-pack',
      version: '1.0.0',
      owner: 'platform',
      schema: { type: 'object' },
    });
    expect(schemas.seen.at(-1)).toEqual({
      path: '/schemas/rule-pack/versions/latest',
      authorization: `Bearer ${readOnly}`,
      tenant: 'default',
    });
    const pinned = await fetch(`${url}/schemas/rule-pack?version=1.0.0`, {
      headers: { authorization: `Bearer ${readOnly}` },
    });
    expect(pinned.status).toBe(200);
    const unknown = await fetch(`${url}/schemas/rule-pack?version=9.0.0`, {
      headers: { authorization: `Bearer ${readOnly}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "Schema 'rule-pack' version '9.0.0' not found" });
  });

  it('health routes and service metadata', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) expect((await fetch(url + path)).status).toBe(200);
    const root = await fetch(`${url}/`);
    expect(root.status).toBe(200);
    expect(await root.json()).toMatchObject({ service: 'validation', version: '0.1.0' });
  });

  it('GET /schemas is 503 with a clear detail while the schema registry is down', async () => {
    await schemas.close();
    const res = await fetch(`${url}/schemas`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ detail: 'The schema registry is unavailable, retry shortly' });
  });
});
