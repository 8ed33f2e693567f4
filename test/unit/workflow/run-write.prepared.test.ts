// A group commit's statements are prepared once per pooled connection (run-write.store.ts,
// workflow.store.ts): each has one text whatever the number of runs, notices or audit events in
// it (the rows travel as JSON parameters), so it can carry one name and PostgreSQL parses and
// plans it once instead of in every group commit.
import type { QueryOptions, SqlExecutor, SqlQuery, SqlResult } from '../../../platform/db/sql';
import { pendingNotice } from '../../../platform/outbox/notice.writer';
import { WORKFLOW_CHANGED } from '../../../platform/contracts/workflow.events';
import { createWorkflowStore, type RunWrite } from '../../../subgraphs/workflow/workflow.store';

interface Seen {
  text: string;
  prepareAs?: string;
}

function recording(returning: (text: string) => Record<string, unknown>[]): { q: SqlQuery; seen: Seen[] } {
  const seen: Seen[] = [];
  const q: SqlQuery = {
    async query<Row>(text: string, _params?: unknown[], options?: QueryOptions): Promise<SqlResult<Row>> {
      seen.push({ text, prepareAs: options?.prepareAs });
      const rows = returning(text) as Row[];
      return { rows, rowCount: rows.length };
    },
    async exec() {
      throw new Error('not expected');
    },
  };
  return { q, seen };
}

const write = (id: string, n: number): RunWrite => ({
  tenantId: 't1',
  workflowId: id,
  owner: 'owner-1',
  leaseMs: 30_000,
  status: 'running',
  items: Array.from({ length: n }, (_, i) => ({ event: i === 0 ? 'step.started' : 'step.completed', step: 's' })),
  steps: [],
  audits: [
    {
      tenantId: 't1',
      eventType: 'workflow_execution',
      eventData: { workflow_id: id },
      userId: null,
      correlationId: null,
      idempotencyKey: `k-${id}`,
    },
  ],
});

const transitions = (id: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    seq: String(i + 1),
    tenant_id: 't1',
    workflow_id: id,
    version: String(i + 2),
    event: i === 0 ? 'step.started' : 'step.completed',
    status: 'running',
    step: 's',
    task_id: null,
    detail: null,
    at: new Date(),
  }));

it('the run write, its audit events with it, goes out as one statement under one prepared name, whatever the group holds', async () => {
  const store = createWorkflowStore({} as SqlExecutor);
  const texts = new Map<string, Set<string>>();
  for (const group of [[write('a', 1)], [write('b', 2), write('c', 3)]]) {
    const { q, seen } = recording((text) =>
      text.startsWith('WITH started AS') ? group.flatMap((w) => transitions(w.workflowId, w.items.length)) : [],
    );
    const written = await store.writeRunsAcrossTenants(q, group);
    expect(written.byExecution.size).toBe(group.length);
    expect(seen.map((s) => s.prepareAs)).toEqual(['workflow_write_runs']);
    for (const s of seen) texts.set(s.prepareAs!, (texts.get(s.prepareAs!) ?? new Set()).add(s.text));
  }
  // One name, one text: a prepared name never stands for two statements.
  for (const set of texts.values()) expect(set.size).toBe(1);
});

it("a transaction's notices go out under one prepared name, whatever their number", async () => {
  const store = createWorkflowStore({} as SqlExecutor);
  const notice = (v: number) =>
    pendingNotice(
      'workflow',
      WORKFLOW_CHANGED,
      { tenant_id: 't1', workflow_id: 'w', version: v, seq: v, event: 'step.completed' },
      { tenantId: 't1', subject: 'workflow/w' },
    );
  const { q, seen } = recording(() => []);
  await store.appendNotices(q, [notice(1)]);
  await store.appendNotices(q, [notice(2), notice(3)]);
  await store.appendNotices(q, []);
  expect(seen.map((s) => s.prepareAs)).toEqual(['workflow_notices', 'workflow_notices']);
  expect(seen[0]!.text).toBe(seen[1]!.text);
});
