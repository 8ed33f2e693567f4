// Workflows started by events (spec 03's event-driven cross-suite workflows, issue 26 item 8): the
// events and workflow services in one harness (real HTTP, one PGlite database, one bus); packs come
// from the packs-registry stand-in. An event published through the events service's REST door
// starts the pack whose trigger names its topic, once per event even when it is delivered again
// (a nack: another trigger on the same event failing once); a filter that does not hold and
// another tenant's event on the same topic start nothing; a trigger whose pack is gone leaves the
// event in the platform group's dead-letter queue and stops nothing else; a platform notice
// (workflow.completed) starts a workflow too, and never its own trigger again. Platform notices
// reach webhooks: an endpoint subscribed to `workflow.*` receives a workflow's lifecycle notices,
// queued by the workflow service's notice relay, signed and sent by the events service's worker.
import { Webhook } from 'standardwebhooks';
import { AccessTokens } from '../../../platform/auth/jwt';
import type { PackVersionView } from '../../../platform/clients/packs-registry.client';
import { ServiceCallError, type ServiceCallContext } from '../../../platform/clients/service-request';
import { platformDeadLetters } from '../../../platform/events/backbone/platform-group.store';
import { defineEventsService } from '../../../services/events';
import { defineWorkflowService } from '../../../services/workflow';
import { triggerGroup } from '../../../subgraphs/workflow/trigger.consumers';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { startReceiver, type Receiver } from '../../integration/events/webhooks.receiver';
import { call, PacksStandIn } from './workflow.support';

jest.setTimeout(120_000);

/** The stand-in registry, refusing a pack's lookups (503) the next `n` times when told to. */
class FlakyPacks extends PacksStandIn {
  readonly failures = new Map<string, number>();
  override async get(context: ServiceCallContext, packId: string, version?: string): Promise<PackVersionView> {
    const left = this.failures.get(packId) ?? 0;
    if (left > 0) {
      this.failures.set(packId, left - 1);
      throw new ServiceCallError('packs registry answered 503', 503, { detail: 'down' });
    }
    return super.get(context, packId, version);
  }
}

const packs = new FlakyPacks();
let h: Harness;
let events: string;
let workflow: string;
let alice: string;
let bert: string;
let receiver: Receiver;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const TOPIC = 'orders.placed';
const SCHEMA = { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } };

const pack = (packId: string, trigger: Record<string, unknown> | undefined, steps = ['note']) => ({
  metadata: { pack_id: packId, version: '1.0.0', workflow_type: 'operational', name: packId },
  ...(trigger ? { trigger } : {}),
  steps: steps.map((s) => ({ step: s, type: 'action', action: 'record', parameters: { note: s } })),
});

beforeAll(async () => {
  receiver = await startReceiver();
  const eventsService = defineEventsService({ webhooks: { backoffMs: [50], jitter: 0, pollMs: 20 } });
  h = await startServices([eventsService, defineWorkflowService({ packs })], {
    REQUIRE_AUTH: 'true',
    EVENTS_WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
    WORKFLOW_POLL_MS: '20',
    WORKFLOW_TRIGGER_BACKOFF_MS: '20',
    WORKFLOW_TRIGGER_MAX_DELIVERIES: '2',
    WORKFLOW_TRIGGER_REFRESH_MS: '100',
  });
  events = h.services.events!.url;
  workflow = h.services.workflow!.url;
  alice = await tokens.issue({ username: 'alice', tenantId: 'trig-a', roles: ['user'], scopes: ['read', 'write'] });
  bert = await tokens.issue({ username: 'bert', tenantId: 'trig-b', roles: ['user'], scopes: ['read', 'write'] });
  for (const token of [alice, bert]) {
    const r = await call(`${events}/topics`, { token, body: { name: TOPIC, schema: SCHEMA } });
    expect(r.status).toBe(201);
  }
  packs.put(pack('on-big-order', { topic: TOPIC, filter: { field: 'amount', operator: '>', value: 100 } }));
  packs.put(pack('on-any-order', { topic: TOPIC }));
  packs.put(pack('no-trigger', undefined));
});

afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** The executions a trigger started, with the event each was started by. */
async function startsOf(triggerId: string): Promise<{ tenant_id: string; event_id: string }[]> {
  const r = await h.db.sql.query<{ tenant_id: string; event_id: string }>(
    `SELECT tenant_id, metadata->'trigger'->>'event_id' AS event_id FROM workflow_executions
      WHERE metadata->'trigger'->>'trigger_id' = $1 ORDER BY created_at`,
    [triggerId],
  );
  return r.rows;
}

/** Every event of the topic's streams has been handled by the triggers' group (acked or dead). */
async function settled(topic = TOPIC): Promise<void> {
  await until(async () => {
    const r = await h.db.sql.query<{ behind: number; open: number }>(
      `SELECT (SELECT count(*)::int FROM event_streams s
                LEFT JOIN event_platform_cursors c ON c.group_name = $1 AND c.tenant_id = s.tenant_id
               WHERE s.topic = $2 AND s.last_position > coalesce(c.position, 0)) AS behind,
              (SELECT count(*)::int FROM event_deliveries WHERE subscription = $3 AND state IN ('ready', 'leased')) AS open`,
      [triggerGroup(topic), topic, `platform:${triggerGroup(topic)}`],
    );
    return r.rows[0]!.behind === 0 && r.rows[0]!.open === 0;
  }, `the trigger group of ${topic} to settle`);
}

const publish = (token: string, data: unknown, id?: string) =>
  call(`${events}/publish`, { token, body: { topic: TOPIC, data, ...(id ? { id } : {}) } });

const createTrigger = (token: string, packId: string, extra: Record<string, unknown> = {}) =>
  call(`${workflow}/triggers`, { token, body: { workflow_pack_id: packId, workflow_type: 'operational', ...extra } });

describe('the triggers door', () => {
  it('creates a trigger from a certified pack, pinned, audited; lists, reads and deletes it in its tenant only', async () => {
    const r = await createTrigger(alice, 'on-any-order');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      workflow_pack_id: 'on-any-order',
      workflow_pack_version: '1.0.0',
      workflow_type: 'operational',
      topic: TOPIC,
      filter: null,
      created_by: 'alice',
    });
    const id = r.body.trigger_id;
    expect(
      (await call(`${workflow}/triggers`, { token: alice })).body.triggers.map((t: any) => t.trigger_id),
    ).toContain(id);
    // Another tenant sees nothing of it and cannot delete it.
    expect((await call(`${workflow}/triggers`, { token: bert })).body.triggers).toEqual([]);
    expect((await call(`${workflow}/triggers/${id}`, { token: bert })).status).toBe(404);
    expect((await call(`${workflow}/triggers/${id}`, { token: bert, method: 'DELETE' })).status).toBe(404);
    expect((await call(`${workflow}/triggers/${id}`, { token: alice })).body.trigger_id).toBe(id);
    const audit = await h.db.sql.query<{ event_type: string; tenant_id: string }>(
      `SELECT event_type, tenant_id FROM outbox_events WHERE event_type = 'workflow_trigger' AND event_data->>'trigger_id' = $1`,
      [id],
    );
    expect(audit.rows).toEqual([{ event_type: 'workflow_trigger', tenant_id: 'trig-a' }]);
    const d = await call(`${workflow}/triggers/${id}`, { token: alice, method: 'DELETE' });
    expect(d).toMatchObject({ status: 200, body: { trigger_id: id, deleted: true } });
    expect((await call(`${workflow}/triggers/${id}`, { token: alice })).status).toBe(404);
  });

  it('refuses bad input: 422 without a trigger or a workflow_type, 404 an unknown pack, 401 without a token', async () => {
    expect((await createTrigger(alice, 'no-trigger')).body.detail[0].loc).toEqual(['body', 'workflow_pack_id']);
    const missing = await call(`${workflow}/triggers`, { token: alice, body: { workflow_pack_id: 'on-any-order' } });
    expect(missing.status).toBe(422);
    expect((await createTrigger(alice, 'no-such-pack')).status).toBe(404);
    expect((await createTrigger(alice, 'on-any-order', { workflow_pack_version: '9.9.9' })).status).toBe(404);
    expect(
      (await call(`${workflow}/triggers`, { body: { workflow_pack_id: 'x', workflow_type: 'operational' } })).status,
    ).toBe(401);
  });
});

describe('events start workflows', () => {
  let big: string;
  let any: string;

  afterAll(async () => {
    for (const id of [big, any]) if (id) await call(`${workflow}/triggers/${id}`, { token: alice, method: 'DELETE' });
  });

  it('an event published through the REST door starts one workflow per trigger even when delivered again', async () => {
    big = (await createTrigger(alice, 'on-big-order')).body.trigger_id;
    any = (await createTrigger(alice, 'on-any-order')).body.trigger_id;
    // The second trigger's pack lookup fails on the first delivery: the consumer nacks the event,
    // which comes back; the first trigger's workflow, already started, is not started again.
    packs.failures.set('on-any-order', 1);
    const p = await publish(alice, { amount: 500 }, 'order-1');
    expect(p.status).toBe(201);
    await until(async () => (await startsOf(any)).length > 0, 'the second trigger to start after the redelivery');
    await settled();
    expect(await startsOf(big)).toEqual([{ tenant_id: 'trig-a', event_id: 'order-1' }]);
    expect(await startsOf(any)).toEqual([{ tenant_id: 'trig-a', event_id: 'order-1' }]);
    expect(packs.failures.get('on-any-order')).toBe(0);
    const wf = await h.db.sql.query<{ id: string; requested_by: string; payload: unknown }>(
      `SELECT id::text, requested_by, payload FROM workflow_executions WHERE metadata->'trigger'->>'trigger_id' = $1`,
      [big],
    );
    expect(wf.rows[0]).toMatchObject({ requested_by: 'alice', payload: { amount: 500 } });
    await until(
      async () => (await call(`${workflow}/status/${wf.rows[0]!.id}`, { token: alice })).body.status === 'completed',
      'the triggered workflow to complete',
    );
  });

  it("a filter that does not hold starts nothing; another tenant's event on the same topic starts nothing here", async () => {
    await publish(alice, { amount: 5 }, 'order-small');
    await publish(bert, { amount: 900 }, 'order-of-b');
    await settled();
    expect((await startsOf(big)).map((s) => s.event_id)).toEqual(['order-1']);
    expect((await startsOf(any)).map((s) => s.event_id)).toEqual(['order-1', 'order-small']);
    const inB = await h.db.sql.query(`SELECT 1 FROM workflow_executions WHERE tenant_id = 'trig-b'`);
    expect(inB.rows).toEqual([]);
  });

  it('a trigger whose pack is gone leaves the event in the dead-letter queue and stops nothing else', async () => {
    packs.put(pack('short-lived', { topic: TOPIC }));
    const poison = (await createTrigger(alice, 'short-lived')).body.trigger_id;
    packs.entries.delete('short-lived@1.0.0');
    await publish(alice, { amount: 700 }, 'order-2');
    await until(
      async () => (await platformDeadLetters(h.db.sql, triggerGroup(TOPIC))).some((d) => d.event.id === 'order-2'),
      'the event to be dead-lettered',
    );
    const [dead] = (await platformDeadLetters(h.db.sql, triggerGroup(TOPIC))).filter((d) => d.event.id === 'order-2');
    expect(dead).toMatchObject({ attempts: 2, event: { tenantId: 'trig-a' } });
    expect(dead!.lastError).toContain('short-lived');
    // The other triggers started their workflows for that event, once each, and the next event flows.
    expect((await startsOf(big)).map((s) => s.event_id)).toEqual(['order-1', 'order-2']);
    await call(`${workflow}/triggers/${poison}`, { token: alice, method: 'DELETE' });
    await publish(alice, { amount: 800 }, 'order-3');
    await settled();
    expect((await startsOf(big)).map((s) => s.event_id)).toEqual(['order-1', 'order-2', 'order-3']);
    expect((await startsOf(any)).map((s) => s.event_id)).toEqual(['order-1', 'order-small', 'order-2', 'order-3']);
  });
});

describe('platform notices start workflows', () => {
  it('workflow.completed (a notice through the outbox and the backbone) starts the chained pack, never itself', async () => {
    packs.put(pack('after-any-completion', { topic: 'workflow.completed' }));
    const chained = (await createTrigger(alice, 'after-any-completion')).body.trigger_id;
    const first = await call(`${workflow}/execute`, {
      token: alice,
      body: { workflow_pack_id: 'first-step', workflow_type: 'operational', payload: {} },
    });
    expect(first.body.status).toBe('completed');
    await until(async () => (await startsOf(chained)).length > 0, 'the chained workflow to start');
    await settled('workflow.completed');
    // Its own completion notice does not start it again.
    const started = await h.db.sql.query<{ id: string; status: string }>(
      `SELECT id::text, status FROM workflow_executions WHERE metadata->'trigger'->>'trigger_id' = $1`,
      [chained],
    );
    expect(started.rows).toHaveLength(1);
    await until(
      async () =>
        (await call(`${workflow}/status/${started.rows[0]!.id}`, { token: alice })).body.status === 'completed',
      'the chained workflow to complete',
    );
    await settled('workflow.completed');
    expect(await startsOf(chained)).toHaveLength(1);
    await call(`${workflow}/triggers/${chained}`, { token: alice, method: 'DELETE' });
  });
});

describe('platform notices reach webhooks', () => {
  it("a webhook subscribed to workflow.* receives a workflow's lifecycle notices, signed", async () => {
    const carol = await tokens.issue({
      username: 'carol',
      tenantId: 'trig-c',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const endpoint = await call(`${events}/webhooks`, {
      token: carol,
      body: { url: receiver.url('/workflow'), topics: ['workflow.*'] },
    });
    expect(endpoint.status).toBe(201);
    const run = await call(`${workflow}/execute`, {
      token: carol,
      body: { workflow_pack_id: 'ops', workflow_type: 'operational', payload: {} },
    });
    expect(run.body.status).toBe('completed');
    const mine = () =>
      receiver.received
        .filter((r) => r.path === '/workflow')
        .map((r) => ({ r, body: JSON.parse(r.body) }))
        .filter((x) => x.body.data?.workflow_id === run.body.workflow_id);
    // Both notices commit in the run's one write and an endpoint takes up to its concurrency (4)
    // deliveries at once, so they may arrive in either order: wait for both.
    await until(
      () => ['workflow.started', 'workflow.completed'].every((t) => mine().some((x) => x.body.type === t)),
      'the workflow.started and workflow.completed webhooks',
    );
    const completed = mine().find((x) => x.body.type === 'workflow.completed')!;
    expect(completed.body).toMatchObject({ tenantid: 'trig-c', topic: 'workflow.completed' });
    expect(mine().map((x) => x.body.type)).toContain('workflow.started');
    // Only workflow.* topics: workflow.changed matches too, step.* and others do not.
    expect(mine().every((x) => x.body.type.startsWith('workflow.'))).toBe(true);
    // Signed like any webhook: v1 verifies with the endpoint's secret.
    const r = completed.r;
    expect(() =>
      new Webhook(endpoint.body.secret).verify(r.body, {
        'webhook-id': r.headers['webhook-id']!,
        'webhook-timestamp': r.headers['webhook-timestamp']!,
        'webhook-signature': r.headers['webhook-signature']!,
      }),
    ).not.toThrow();
    // Another tenant's workflows never reach this tenant's endpoint.
    expect(
      receiver.received.filter((x) => x.path === '/workflow').every((x) => JSON.parse(x.body).tenantid === 'trig-c'),
    ).toBe(true);
  });
});

describe('the triggers over GraphQL', () => {
  const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
    call(`${workflow}/graphql`, { token, body: { query, variables } }).then((r) => r.body);

  it("creates, lists and deletes a trigger in the caller's tenant; another tenant sees nothing", async () => {
    const created = await gql(
      alice,
      `mutation($input: CreateWorkflowTriggerInput!) {
        createWorkflowTrigger(input: $input) { id workflowPackId workflowPackVersion workflowType topic filter createdBy }
      }`,
      { input: { workflowPackId: 'on-big-order', workflowType: 'operational' } },
    );
    expect(created.errors).toBeUndefined();
    const t = created.data.createWorkflowTrigger;
    expect(t).toMatchObject({
      workflowPackId: 'on-big-order',
      workflowPackVersion: '1.0.0',
      topic: TOPIC,
      filter: { field: 'amount', operator: '>', value: 100 },
      createdBy: 'alice',
    });
    expect((await gql(alice, '{ workflowTriggers { id } }')).data.workflowTriggers.map((x: any) => x.id)).toContain(
      t.id,
    );
    expect((await gql(bert, '{ workflowTriggers { id } }')).data.workflowTriggers).toEqual([]);
    expect((await gql(bert, `{ workflowTrigger(id: "${t.id}") { id } }`)).data.workflowTrigger).toBeNull();
    const foreign = await gql(bert, `mutation { deleteWorkflowTrigger(id: "${t.id}") }`);
    expect(foreign.errors[0].extensions.code).toBe('NOT_FOUND');
    const bad = await gql(
      alice,
      `mutation { createWorkflowTrigger(input: { workflowPackId: "no-trigger", workflowType: "operational" }) { id } }`,
    );
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect((await gql(alice, `mutation { deleteWorkflowTrigger(id: "${t.id}") }`)).data.deleteWorkflowTrigger).toBe(
      true,
    );
    expect((await gql(alice, `{ workflowTrigger(id: "${t.id}") { id } }`)).data.workflowTrigger).toBeNull();
  });
});
