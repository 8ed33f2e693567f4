// The trigger store's reads and deletes are scoped by the tenant id they take (another tenant's id
// finds and deletes nothing), the cross-tenant topic sweep is the one exception by name, and a
// (trigger, event) is claimed once: the second claim, as a redelivery makes it, inserts nothing.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createWorkflowStore, type WorkflowStore } from '../../../subgraphs/workflow/workflow.store';

jest.setTimeout(60_000);

let db: TestDatabase;
let store: WorkflowStore;
const triggerId = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase();
  store = createWorkflowStore(db.sql);
  await store.transaction((q) =>
    store.insertTrigger(q, 'tenant-a', {
      id: triggerId,
      packId: 'p',
      packVersion: '1.0.0',
      workflowType: 'operational',
      topic: 'orders.placed',
      filter: { field: 'amount', operator: '>', value: 1 },
      createdBy: 'alice',
    }),
  );
});

afterAll(async () => {
  await db?.drop();
});

it("reads a trigger with its tenant's id only", async () => {
  expect(await store.trigger('tenant-a', triggerId)).toMatchObject({
    id: triggerId,
    topic: 'orders.placed',
    filter: { field: 'amount', operator: '>', value: 1 },
  });
  expect(await store.trigger('tenant-b', triggerId)).toBeUndefined();
  expect(await store.triggers('tenant-b')).toEqual([]);
  expect(await store.triggersOnTopic('tenant-b', 'orders.placed')).toEqual([]);
  expect((await store.triggersOnTopic('tenant-a', 'orders.placed')).map((t) => t.id)).toEqual([triggerId]);
  expect(await store.triggerTopicsAcrossTenants()).toEqual(['orders.placed']);
});

it('claims a (trigger, event) once, per tenant', async () => {
  const start = { triggerId, eventId: 'e-1', workflowId: randomUUID() };
  expect(await store.transaction((q) => store.claimTriggerStart(q, 'tenant-a', start))).toBe(true);
  expect(
    await store.transaction((q) => store.claimTriggerStart(q, 'tenant-a', { ...start, workflowId: randomUUID() })),
  ).toBe(false);
  expect(await store.triggerStart('tenant-a', triggerId, 'e-1')).toBe(start.workflowId);
  expect(await store.triggerStart('tenant-b', triggerId, 'e-1')).toBeUndefined();
});

it("deletes nothing with another tenant's id", async () => {
  expect(await store.transaction((q) => store.deleteTrigger(q, 'tenant-b', triggerId))).toBe(false);
  expect(await store.trigger('tenant-a', triggerId)).toBeDefined();
  expect(await store.transaction((q) => store.deleteTrigger(q, 'tenant-a', triggerId))).toBe(true);
  expect(await store.trigger('tenant-a', triggerId)).toBeUndefined();
});
