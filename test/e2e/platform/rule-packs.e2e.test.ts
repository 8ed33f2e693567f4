// Rule packs end to end, with every real service and nothing standing in: an author drafts a
// pack in the rule-pack registry, a reviewer certifies (signs) it, the packs registry catalogs it
// from the bus, another tenant validates against it through the validation port, the gateway
// and the router, each run lands in that tenant's ledger; a workflow pack depending on it resolves
// across subgraphs; deprecation reaches the validation service's cache at once (the process's one
// bus) and runs are refused naming the replacement.
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, TEST_ENV } from '../identity/identity.helpers';
import { gql, startPlatform, type Platform } from '../router/platform.support';
import {
  certified,
  createPeople,
  registryClient,
  samplePack,
  type People,
} from '../rulepack-registry/rulepack.support';

jest.setTimeout(240_000);

let p: Platform;
let people: People;
let relay: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  p = await startPlatform({ ...TEST_ENV, PASSWORD_SCRYPT_LOG_N: '10' });
  relay = startOutboxTask({
    running: SERVICES,
    registry: registryOf(),
    db: p.db,
    env: p.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
  people = await createPeople(p.urls.identity!);
});

afterAll(async () => {
  for (const r of relay) await r.stop();
  await p?.close();
});

const PACK = samplePack('payments-e2e', '1.0.0');
const BAD = { amount: -5, iban: 'nope', email: 'jane.doe@example.com' };

async function execute(base: string, path: string, token: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any };
}

describe('a certified rule pack, used by another tenant', () => {
  let correlationIds: string[] = [];

  beforeAll(async () => {
    const api = registryClient(p.urls['rulepack-registry']!);
    const view = await certified(api, people, PACK);
    expect(view).toMatchObject({ status: 'certified', owner_tenant: 'default', signature: expect.any(String) });
  });

  it('runs through the validation port, the gateway and the router with the same result', async () => {
    const body = { rule_pack_id: 'payments-e2e', payload: BAD };
    const direct = await execute(p.urls.validation!, '/validate', people.otherTenant, body);
    const viaGateway = await execute(p.gateway, '/api/v1/rulepacks/execute', people.otherTenant, body);
    for (const r of [direct, viaGateway]) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ rule_pack_version: '1.0.0', pack_source: 'registry', result: { valid: false } });
      expect(r.body.result.errors).toEqual([
        expect.objectContaining({
          rule_id: 'amount-positive',
          severity: 'FATAL',
          field: 'amount',
          message: 'amount must be positive',
        }),
      ]);
      expect(r.body.result.warnings).toEqual([
        expect.objectContaining({ rule_id: 'iban-format', severity: 'WARNING' }),
      ]);
      expect(r.text).not.toContain('jane.doe@example.com');
    }
    const graph = await gql(
      p.gateway,
      `mutation($input: ValidateInput!) { validate(input: $input) {
      correlationId result { valid errors { ruleId severity } } rulePack { id version status signature } } }`,
      { token: people.otherTenant, variables: { input: { rulePackId: 'payments-e2e', payload: BAD } } },
    );
    expect(graph.body.errors).toBeUndefined();
    // The RulePack the run used, resolved by the rule-pack registry's subgraph.
    expect(graph.body.data.validate).toMatchObject({
      result: { valid: false, errors: [{ ruleId: 'amount-positive', severity: 'FATAL' }] },
      rulePack: { id: 'payments-e2e', version: '1.0.0', status: 'CERTIFIED', signature: expect.any(String) },
    });
    correlationIds = [
      direct.body.correlation_id,
      viaGateway.body.correlation_id,
      graph.body.data.validate.correlationId,
    ];
  });

  it("audits every run in the running tenant's ledger, never in the pack owner's", async () => {
    const events = async (token: string) => {
      const res = await call(`${p.gateway}/api/v1/ledger/events?event_type=rule_execution`, { token });
      expect(res.status).toBe(200);
      return (res.body as { events: { correlation_id: string; tenant_id: string; event_data: any }[] }).events;
    };
    await until(async () => {
      const mine = await events(people.otherTenant);
      return correlationIds.every((id) => mine.some((e) => e.correlation_id === id));
    }, 'three rule_execution events in tenant-b');
    const mine = (await events(people.otherTenant)).filter((e) => correlationIds.includes(e.correlation_id));
    for (const e of mine)
      expect(e).toMatchObject({
        tenant_id: 'tenant-b',
        event_data: { rulepack_id: 'payments-e2e', rules_executed: 2, violations: 2, result: 'failed' },
      });
    const owners = await events(people.author);
    expect(owners.filter((e) => correlationIds.includes(e.correlation_id))).toEqual([]);
  });

  it('is in the packs registry catalog (from the bus), and a workflow pack depending on it resolves across subgraphs', async () => {
    const packs = p.urls['packs-registry']!;
    await until(async () => {
      const res = await call(`${packs}/packs?kind=rule`, { token: people.otherTenant });
      return JSON.stringify(res.body).includes('payments-e2e');
    }, 'the rule pack in the catalog');
    const workflow = {
      metadata: { pack_id: 'payments-flow-e2e', version: '1.0.0', workflow_type: 'operational', name: 'payments' },
      steps: [{ step: 'check', type: 'validation', rule_pack_id: 'payments-e2e', rule_pack_version: '1.0.0' }],
    };
    const submitted = await call(`${packs}/packs`, {
      method: 'POST',
      token: people.author,
      json: { artifact: workflow, format: 'json' },
    });
    expect(submitted.status).toBe(201);
    const graph = await gql(
      p.gateway,
      `{ pack(packId: "payments-flow-e2e", version: "1.0.0") { packId status dependencies { rulePacks { id version status sha256 } } } }`,
      { token: people.author },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.pack).toMatchObject({
      packId: 'payments-flow-e2e',
      status: 'DRAFT',
      dependencies: {
        rulePacks: [{ id: 'payments-e2e', version: '1.0.0', status: 'CERTIFIED', sha256: expect.any(String) }],
      },
    });
  });

  it('refuses runs of a deprecated version at once, naming the replacement', async () => {
    const api = registryClient(p.urls['rulepack-registry']!);
    await certified(api, people, samplePack('payments-e2e', '1.1.0'));
    // Cached by the validation service from the runs above.
    expect(
      (
        await execute(p.gateway, '/api/v1/rulepacks/execute', people.otherTenant, {
          rule_pack_id: 'payments-e2e',
          rule_pack_version: '1.0.0',
          payload: BAD,
        })
      ).status,
    ).toBe(200);
    const deprecated = await api.deprecate(people.reviewer, 'payments-e2e', '1.0.0', { replacement_version: '1.1.0' });
    expect(deprecated.status).toBe(200);
    // The deprecation reaches the validation service's cache through the events backbone (the
    // registry's notice outbox, its relay, a durable consumer in every validation process): after
    // the deprecating request has answered, not inside it. It must arrive well before the cache's
    // 300 s TTL could explain a refusal.
    let refused = { status: 0, body: {} as any };
    await until(async () => {
      refused = await execute(p.gateway, '/api/v1/rulepacks/execute', people.otherTenant, {
        rule_pack_id: 'payments-e2e',
        rule_pack_version: '1.0.0',
        payload: BAD,
      });
      return refused.status !== 200;
    }, 'the deprecation to reach the validation service');
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body.detail)).toContain('1.1.0');
    // Without a version, the newest certified one runs.
    const latest = await execute(p.gateway, '/api/v1/rulepacks/execute', people.otherTenant, {
      rule_pack_id: 'payments-e2e',
      payload: BAD,
    });
    expect(latest.status).toBe(200);
    expect(latest.body.rule_pack_version).toBe('1.1.0');
  });
});
