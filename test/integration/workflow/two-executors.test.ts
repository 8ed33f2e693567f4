// Two executors over one database share the work without running a step twice. Both are real
// executors (each with its own owner id, poller and leases) in this process over the same
// database: on PGlite that is the only way to share one (it serves one process); with
// DATABASE_URL the same test runs them over PostgreSQL connections of their own pools' sharing.
// Forty sagas of three http steps are made runnable at once; both pollers claim with FOR UPDATE
// SKIP LOCKED and drive concurrently; every step's call reaches the callee exactly once, and
// both executors did part of the work.
import { createLogger } from '../../../platform/logging/logger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { loadWorkflowConfig } from '../../../subgraphs/workflow/workflow.config';
import { createWorkflowModule, type WorkflowModule } from '../../../subgraphs/workflow/workflow.module';
import { registryOf } from '../../../launcher/registry';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import { until } from '../../support/waiting';
import {
  httpPack,
  PacksStandIn,
  startCallee,
  ValidationStandIn,
  type Callee,
} from '../../e2e/workflow/workflow.support';

jest.setTimeout(120_000);

const N = 40;
let db: TestDatabase;
let callee: Callee;
const modules: WorkflowModule[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  callee = await startCallee();
});

afterAll(async () => {
  for (const m of modules) await m.executor.stop();
  await callee?.close();
  await db?.drop();
});

it('two executors drive 40 sagas together and no step is run twice', async () => {
  const packs = new PacksStandIn();
  packs.put(httpPack('shared', callee.url, ['s-a', 's-b', 's-c'], { requires_approval: true }));
  const config = { ...loadWorkflowConfig({}, registryOf()), pollMs: 10, concurrency: 8 };
  const bus = createMemoryEventBus();
  for (const owner of ['executor-1', 'executor-2']) {
    modules.push(
      createWorkflowModule({
        db,
        bus,
        config,
        logger: createLogger('ERROR', owner),
        jwtSecret: 'x'.repeat(40),
        version: 'test',
        packs,
        validation: new ValidationStandIn(),
        owner,
      }),
    );
  }
  const caller = {
    correlationId: 'c',
    auth: { username: 'alice', tenantId: 't', roles: ['user'], scopes: ['read', 'write'], isService: false },
  };
  // Each saga waits at its approval gate, so none is driven yet.
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const r = await modules[0]!.service.execute(caller, {
      workflowPackId: 'shared',
      workflowType: 'operational',
      payload: { i },
    });
    expect(r.status).toBe('pending_approval');
    ids.push(r.workflowId);
  }
  // Approve them all at once, behind the executors' backs: all runnable, nobody holds a lease.
  await db.sql.query(
    "UPDATE workflow_approval_tasks SET status = 'approved', reviewer = 'bob', decision = 'approve', decided_at = now()",
  );
  await db.sql.query(
    "UPDATE workflow_executions SET status = 'running', next_run_at = now(), lease_owner = NULL, lease_expires_at = NULL",
  );
  for (const m of modules) m.executor.start();

  await until(
    async () => {
      const r = await db.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM workflow_executions WHERE status = 'completed'",
      );
      return Number(r.rows[0]!.n) === N;
    },
    'every saga to complete',
    { tries: 2400, everyMs: 25 },
  );

  const calls = callee.calls.filter((c) => ids.some((id) => c.key?.startsWith(id)));
  expect(calls).toHaveLength(N * 3);
  expect(new Set(calls.map((c) => c.key)).size).toBe(N * 3);
  const byExecutor = await db.sql.query<{ executor: string; n: number }>(
    "SELECT detail->>'executor' AS executor, count(*)::int AS n FROM workflow_transitions WHERE event = 'step.started' AND step LIKE 's-%' GROUP BY 1",
  );
  const counts = Object.fromEntries(byExecutor.rows.map((r) => [r.executor, Number(r.n)]));
  expect(counts['executor-1']! + counts['executor-2']!).toBe(N * 3);
  expect(counts['executor-1']).toBeGreaterThan(0);
  expect(counts['executor-2']).toBeGreaterThan(0);
});
