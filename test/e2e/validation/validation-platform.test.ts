// The validation service in the whole platform: the gateway's POST /api/v1/rulepacks/execute, the
// router's `validate` mutation (joined to the RulePack reference for registry runs), and every run
// reaching the tenant's own ledger as a rule_execution event through the outbox relay; another
// tenant's ledger never sees it.
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';
import { BAD_RECORD, GOOD_RECORD, KYC_PACK, PII } from './support/packs';
import { startRulePackRegistry, type RulePackRegistryStandIn } from './support/rulepack-registry.stand-in';

jest.setTimeout(180_000);

let platform: Platform;
let registry: RulePackRegistryStandIn;
let relay: { stop(): Promise<void> }[] = [];
let gateway: string;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  registry = await startRulePackRegistry();
  registry.put({ pack_id: 'kyc-basic', version: '1.0.0', status: 'certified', pack: KYC_PACK });
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', RULEPACK_REGISTRY_URL: registry.url });
  gateway = platform.gateway;
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: platform.db,
    env: platform.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
  tokenA = await tenantToken('tenant-a');
  tokenB = await tenantToken('tenant-b');
});

afterAll(async () => {
  for (const r of relay) await r.stop();
  await platform?.close();
  await registry?.close();
});

async function execute(token: string, body: unknown) {
  const res = await fetch(`${gateway}/api/v1/rulepacks/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

async function ledgerRuns(token: string): Promise<{ correlation_id: string; event_data: any; tenant_id: string }[]> {
  const res = await fetch(`${gateway}/api/v1/ledger/events?event_type=rule_execution`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: any[] }).events;
}

const VALIDATE = `mutation ($input: ValidateInput!) {
  validate(input: $input) {
    result { valid errors { ruleId severity field message row } warnings { ruleId severity } ruleResults metadata }
    correlationId executionTimeMs rulePackId rulePackVersion packSource packSha256 inputSha256
    rulePack { id version }
  }
}`;

it("the gateway's POST /api/v1/rulepacks/execute runs a certified pack, and the run reaches the caller's ledger", async () => {
  const r = await execute(tokenA, { rule_pack_id: 'kyc-basic', rule_pack_version: '1.0.0', payload: BAD_RECORD });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ rule_pack_version: '1.0.0', pack_source: 'registry', result: { valid: false } });
  for (const secret of [PII.email, PII.ssn]) expect(r.text).not.toContain(secret);
  // The registry saw the caller's own token and tenant.
  expect(registry.seen.filter((s) => s.path.startsWith('/rulepacks/')).at(-1)).toMatchObject({
    authorization: `Bearer ${tokenA}`,
    tenant: 'tenant-a',
  });

  let runs: Awaited<ReturnType<typeof ledgerRuns>> = [];
  await until(
    async () => (runs = await ledgerRuns(tokenA)).some((e) => e.correlation_id === r.body.correlation_id),
    "the rule_execution event in tenant-a's ledger",
  );
  const event = runs.find((e) => e.correlation_id === r.body.correlation_id)!;
  expect(event.tenant_id).toBe('tenant-a');
  expect(event.event_data).toMatchObject({
    rulepack_id: 'kyc-basic',
    rules_executed: 4,
    violations: 3,
    result: 'failed',
    pack_source: 'registry',
    rule_pack_version: '1.0.0',
    input_sha256: r.body.input_sha256,
    pack_sha256: r.body.pack_sha256,
  });
  for (const secret of [PII.email, PII.ssn]) expect(JSON.stringify(runs)).not.toContain(secret);
});

it("the router's validate mutation: registry runs reference the RulePack that ran, inline runs none", async () => {
  const registryRun = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: { input: { rulePackId: 'kyc-basic', rulePackVersion: '1.0.0', payload: GOOD_RECORD } },
  });
  expect(registryRun.body.errors).toBeUndefined();
  expect(registryRun.body.data.validate).toMatchObject({
    result: { valid: true, errors: [], warnings: [] },
    rulePackId: 'kyc-basic',
    rulePackVersion: '1.0.0',
    packSource: 'REGISTRY',
    rulePack: { id: 'kyc-basic', version: '1.0.0' },
  });
  const inline = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: { input: { rulePack: KYC_PACK, payload: [GOOD_RECORD, BAD_RECORD], strictMode: true } },
  });
  expect(inline.body.errors).toBeUndefined();
  const run = inline.body.data.validate;
  expect(run).toMatchObject({
    packSource: 'INLINE',
    rulePack: null,
    rulePackVersion: '1.0.0',
    result: { valid: false },
  });
  expect(run.result.errors).toContainEqual({
    ruleId: 'R1',
    severity: 'FATAL',
    field: 'customer_id',
    message: 'Customer id is required',
    row: 1,
  });
  const csv = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: { input: { rulePack: KYC_PACK, payload: 'customer_id,email\nC-1,a@b.io\n', payloadFormat: 'CSV' } },
  });
  expect(csv.body.errors).toBeUndefined();
  expect(csv.body.data.validate.result.metadata.records).toBe(1);
});

it('bad input is BAD_USER_INPUT with extensions.field in GraphQL names', async () => {
  const neither = await gql(gateway, VALIDATE, { token: tokenA, variables: { input: { payload: GOOD_RECORD } } });
  expect(neither.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'rulePackId' });
  const badPack = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: {
      input: { rulePack: { metadata: {}, rules: [{ ...KYC_PACK.rules[0], operator: 'eval' }] }, payload: GOOD_RECORD },
    },
  });
  expect(badPack.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  expect((badPack.body.errors?.[0]?.extensions as any).field).toMatch(/^rulePack\.rules\.0/);
  const ragged = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: { input: { rulePack: KYC_PACK, payload: 'a,b\n1,2,3\n', payloadFormat: 'CSV' } },
  });
  expect(ragged.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  expect((ragged.body.errors?.[0]?.extensions as any).field).toMatch(/^payload/);
  const missing = await gql(gateway, VALIDATE, {
    token: tokenA,
    variables: { input: { rulePackId: 'no-such-pack', payload: GOOD_RECORD } },
  });
  expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
});

it("an inline run is audited in its own tenant; another tenant's ledger does not see it", async () => {
  const b = await execute(tokenB, { rule_pack: KYC_PACK, payload: GOOD_RECORD, validation_type: 'tenant-b-check' });
  expect(b.status).toBe(200);
  await until(
    async () => (await ledgerRuns(tokenB)).some((e) => e.correlation_id === b.body.correlation_id),
    "the run in tenant-b's ledger",
  );
  const inB = (await ledgerRuns(tokenB)).find((e) => e.correlation_id === b.body.correlation_id)!;
  expect(inB).toMatchObject({
    tenant_id: 'tenant-b',
    event_data: {
      pack_source: 'inline',
      pack_sha256: b.body.pack_sha256,
      validation_type: 'tenant-b-check',
      result: 'passed',
    },
  });
  const inA = await ledgerRuns(tokenA);
  expect(inA.length).toBeGreaterThan(0);
  expect(
    inA.some((e) => e.correlation_id === b.body.correlation_id || e.event_data.validation_type === 'tenant-b-check'),
  ).toBe(false);
  // Naming tenant A at the gateway is refused outright.
  const forged = await fetch(`${gateway}/api/v1/rulepacks/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokenB}`, 'content-type': 'application/json', 'x-tenant-id': 'tenant-a' },
    body: JSON.stringify({ rule_pack: KYC_PACK, payload: GOOD_RECORD }),
  });
  expect(forged.status).toBe(403);
});
