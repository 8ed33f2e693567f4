// A group write's notices go out in its one statement (run-write.store.ts, workflow.events.ts
// `planned`): the statement completes each from the transition it reports, so the stored notices
// are the ones the transaction of separate statements wrote (`written`, from the transitions read
// back), in order; an execution whose lease is gone gets none; the compliance notices handed on
// after the commit are the stored ones.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import type { PendingNotice } from '../../../platform/outbox/notice.writer';
import { WorkflowEvents, workflowSubject } from '../../../subgraphs/workflow/workflow.events';
import { createWorkflowStore, type RunWrite, type WorkflowStore } from '../../../subgraphs/workflow/workflow.store';

jest.setTimeout(60_000);

let db: TestDatabase;
let store: WorkflowStore;
const logger = { warn: () => undefined } as unknown as ConstructorParameters<typeof WorkflowEvents>[2];

beforeAll(async () => {
  db = await createTestDatabase();
  store = createWorkflowStore(db.sql);
});

afterAll(async () => {
  await db.drop();
});

const insert = (id: string, tenantId: string): NonNullable<RunWrite['insert']> => ({
  id,
  tenantId,
  packId: 'p',
  packVersion: null,
  packSource: 'registry',
  workflowType: 'operational',
  requiresApproval: false,
  pack: {},
  payload: { n: 1 },
  metadata: {},
  requestedBy: 'carol',
  correlationId: 'corr',
  leaseOwner: 'owner',
  leaseMs: 60_000,
});

async function stored(tenantId: string, id: string): Promise<{ topic: string; data: Record<string, unknown> }[]> {
  const r = await db.sql.query<{ topic: string; envelope: { data: Record<string, unknown> } }>(
    'SELECT topic, envelope FROM notice_outbox WHERE tenant_id = $1 AND subject = $2 ORDER BY id',
    [tenantId, workflowSubject(id)],
  );
  return r.rows.map((row) => ({ topic: row.topic, data: row.envelope.data }));
}

it("stores the notices the transitions' own transaction stored, completed from the transitions, in order", async () => {
  const id = randomUUID();
  const lost = randomUUID();
  const events = new WorkflowEvents(store, { publish: async () => undefined }, logger);
  const write: RunWrite = {
    insert: insert(id, 'tenant-n'),
    tenantId: 'tenant-n',
    workflowId: id,
    owner: 'owner',
    leaseMs: 60_000,
    status: 'running',
    items: [
      { event: 'workflow.started' },
      { event: 'step.started', step: 'a', detail: { attempt: 1, executor: 'owner' } },
      { event: 'step.failed', step: 'a', detail: { attempt: 1, error: 'boom' } },
      { event: 'workflow.failed' },
    ],
    patch: { status: 'failed', error: 'boom', completed: true, release: true },
    steps: [],
  };
  // Another tenant's write on an execution it does not hold: nothing moves, no notice.
  const other: RunWrite = { ...write, insert: undefined, workflowId: lost, tenantId: 'tenant-m' };
  const noticed = [write, other].map((w) => ({ ...w, correlationId: 'corr' }));
  const planned = events.planned(noticed);
  const written = await store.writeRunsAcrossTenants(store.sql, [write, other], planned);
  expect([...written.byExecution.keys()]).toEqual([id]);
  expect(await stored('tenant-m', lost)).toEqual([]);

  // What the transaction of separate statements would have stored for the same transitions.
  const transitions = written.byExecution.get(id)!.transitions;
  let expected: PendingNotice[] = [];
  const recorder = new WorkflowEvents(
    {
      appendNotices: async (_q, notices) => {
        expected = [...notices];
      },
    },
    { publish: async () => undefined },
    logger,
  );
  const compliance = await recorder.written(store.sql, transitions, 'corr');
  const mine = await stored('tenant-n', id);
  expect(mine).toEqual(
    expected.map((n) => ({ topic: n.envelope.type, data: JSON.parse(JSON.stringify(n.envelope.data)) })),
  );
  expect(mine.at(-1)).toEqual({
    topic: 'workflow.changed',
    data: expect.objectContaining({ version: 4, seq: transitions.at(-1)!.seq, event: 'workflow.failed' }),
  });

  // The compliance notices handed on after the commit are the stored rows' envelopes.
  const handed = events.plannedCompliance(planned, written.byExecution);
  expect(handed.map((n) => n.envelope.data)).toEqual(compliance.map((n) => n.envelope.data));
  const rows = await db.sql.query<{ envelope: unknown }>(
    'SELECT envelope FROM notice_outbox WHERE event_id = ANY($1::text[]) ORDER BY id',
    [handed.map((n) => n.envelope.id)],
  );
  expect(rows.rows.map((r) => r.envelope)).toEqual(handed.map((n) => JSON.parse(JSON.stringify(n.envelope))));
});
