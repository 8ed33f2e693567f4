// The backbone store's afterInsert hook, as the events service wires it to the webhook queue: a
// stored event is queued for the tenant's matching endpoints in the publish's own transaction, a
// retried id is not queued again, and a publish whose queueing fails stores nothing (both commit or
// neither does). No worker runs here: only what is queued is looked at.
import { randomUUID } from 'node:crypto';
import { createEventsStore } from '../../../platform/events/backbone/backbone.store';
import { webhookQueueHooks } from '../../../platform/events/backbone/webhook-queue.store';
import type { NewEvent } from '../../../platform/events/backbone/backbone.types';
import { createLogger } from '../../../platform/logging/logger';
import { cloudEventJson } from '../../../subgraphs/events/events.service';
import { createWebhookModule, loadWebhookConfig } from '../../../subgraphs/events/webhooks';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

function event(tenantId: string, topic: string): NewEvent {
  return {
    id: randomUUID(),
    tenantId,
    topic,
    source: '/test',
    type: topic,
    time: new Date().toISOString(),
    subject: null,
    traceparent: null,
    data: { n: 1 },
    size: 100,
  };
}

async function queued(tenantId: string): Promise<{ event_id: string; endpoint_id: string }[]> {
  const res = await db.sql.query<{ event_id: string; endpoint_id: string }>(
    `SELECT event_id, endpoint_id::text AS endpoint_id FROM webhook_queue WHERE tenant_id = $1 ORDER BY id`,
    [tenantId],
  );
  return res.rows;
}

function setup() {
  const webhooks = createWebhookModule({
    db,
    logger: createLogger('CRITICAL', 'test'),
    config: loadWebhookConfig({ EVENTS_WEBHOOK_ALLOW_PRIVATE: 'true' }),
  });
  const store = createEventsStore(db.sql, {
    afterInsert: async (tx, e) => {
      await webhooks.deliver({ ...cloudEventJson(e), id: e.id, type: e.type, tenantid: e.tenantId }, tx);
    },
  });
  return { webhooks, store };
}

it("queues a stored event for the tenant's matching endpoints, once per id", async () => {
  const { webhooks, store } = setup();
  const all = await webhooks.endpoints.create('q-a', { url: 'http://127.0.0.1:9/all' });
  const orders = await webhooks.endpoints.create('q-a', { url: 'http://127.0.0.1:9/orders', topics: ['orders.*'] });
  await webhooks.endpoints.create('q-b', { url: 'http://127.0.0.1:9/other-tenant' });

  const e = event('q-a', 'orders.created');
  expect((await store.publish('q-a', e, 1e12)).kind).toBe('stored');
  const rows = await queued('q-a');
  expect(rows.map((r) => r.endpoint_id).sort()).toEqual([all.endpoint.id, orders.endpoint.id].sort());
  expect(rows.every((r) => r.event_id === e.id)).toBe(true);
  expect(await queued('q-b')).toEqual([]);

  // A retry of the same id is a duplicate: the hook does not run, nothing more is queued.
  expect((await store.publish('q-a', e, 1e12)).kind).toBe('duplicate');
  expect(await queued('q-a')).toHaveLength(2);

  // Another topic reaches only the unfiltered endpoint.
  await store.publish('q-a', event('q-a', 'invoices.paid'), 1e12);
  expect((await queued('q-a')).map((r) => r.endpoint_id)).toEqual(expect.arrayContaining([all.endpoint.id]));
  expect(await queued('q-a')).toHaveLength(3);
});

it('queues from a store built in platform code with the platform hook alone (a notice relay), by the same filter', async () => {
  const { webhooks } = setup();
  const star = await webhooks.endpoints.create('q-d', { url: 'http://127.0.0.1:9/star', topics: ['*'] });
  const exact = await webhooks.endpoints.create('q-d', { url: 'http://127.0.0.1:9/x', topics: ['workflow.completed'] });
  const prefix = await webhooks.endpoints.create('q-d', { url: 'http://127.0.0.1:9/p', topics: ['workflow.*'] });
  const off = await webhooks.endpoints.create('q-d', { url: 'http://127.0.0.1:9/off' });
  await webhooks.endpoints.update('q-d', off.endpoint.id, { enabled: false });
  const relayStore = createEventsStore(db.sql, webhookQueueHooks);
  await relayStore.publish('q-d', event('q-d', 'workflow.completed'), 1e12);
  await relayStore.publish('q-d', event('q-d', 'workflow.completed.v2'), 1e12);
  const byEndpoint = (id: string) => queued('q-d').then((rows) => rows.filter((r) => r.endpoint_id === id).length);
  expect(await byEndpoint(star.endpoint.id)).toBe(2);
  expect(await byEndpoint(exact.endpoint.id)).toBe(1);
  expect(await byEndpoint(prefix.endpoint.id)).toBe(2);
  expect(await byEndpoint(off.endpoint.id)).toBe(0);
  const payload = await db.sql.query<{ payload: string }>(
    `SELECT payload FROM webhook_queue WHERE tenant_id = $1 LIMIT 1`,
    ['q-d'],
  );
  expect(JSON.parse(payload.rows[0]!.payload)).toMatchObject({ specversion: '1.0', tenantid: 'q-d', data: { n: 1 } });
});

it('stores nothing when the queueing fails: the event and its deliveries commit together', async () => {
  const { webhooks } = setup();
  await webhooks.endpoints.create('q-c', { url: 'http://127.0.0.1:9/c' });
  const failing = createEventsStore(db.sql, {
    afterInsert: async (tx, e) => {
      await webhooks.deliver({ ...cloudEventJson(e), id: e.id, type: e.type, tenantid: e.tenantId }, tx);
      throw new Error('the queue is down');
    },
  });
  const e = event('q-c', 'orders.created');
  await expect(failing.publish('q-c', e, 1e12)).rejects.toThrow('the queue is down');
  expect(await queued('q-c')).toEqual([]);
  const stored = await db.sql.query(`SELECT 1 FROM event_records WHERE tenant_id = $1 AND id = $2`, ['q-c', e.id]);
  expect(stored.rows).toHaveLength(0);
  const head = await db.sql.query(`SELECT 1 FROM event_streams WHERE tenant_id = $1`, ['q-c']);
  expect(head.rows).toHaveLength(0);
});

it('queues many events appended in one call (a relay pass) by the same filter, once per id, with the same payload as one by one', async () => {
  const { webhooks } = setup();
  const star = await webhooks.endpoints.create('q-m', { url: 'http://127.0.0.1:9/star', topics: ['*'] });
  const exact = await webhooks.endpoints.create('q-m', { url: 'http://127.0.0.1:9/x', topics: ['workflow.completed'] });
  await webhooks.endpoints.create('q-other', { url: 'http://127.0.0.1:9/other' });
  const relayStore = createEventsStore(db.sql, webhookQueueHooks);
  const completed = [event('q-m', 'workflow.completed'), event('q-m', 'workflow.completed')];
  const stored = await relayStore.appendMany('q-m', 'workflow.completed', completed);
  expect(stored).toHaveLength(2);
  await relayStore.appendMany('q-m', 'workflow.started', [event('q-m', 'workflow.started')]);
  // A retried pass stores and queues nothing more.
  expect(await relayStore.appendMany('q-m', 'workflow.completed', completed)).toEqual([]);
  const byEndpoint = (id: string) => queued('q-m').then((rows) => rows.filter((r) => r.endpoint_id === id).length);
  expect(await byEndpoint(star.endpoint.id)).toBe(3);
  expect(await byEndpoint(exact.endpoint.id)).toBe(2);
  expect(await queued('q-other')).toEqual([]);
  const payload = await db.sql.query<{ payload: string }>(
    `SELECT payload FROM webhook_queue WHERE tenant_id = $1 AND event_id = $2 LIMIT 1`,
    ['q-m', completed[0]!.id],
  );
  expect(JSON.parse(payload.rows[0]!.payload)).toEqual({
    ...cloudEventJson(stored[0]!),
    id: completed[0]!.id,
    type: 'workflow.completed',
  });
});
