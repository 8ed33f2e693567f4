// The executor's poll claims runnable executions with a plan that never walks the ended ones
// again (execution-lease.store.ts): its claim runs in a transaction that has turned bitmap scans
// off, so PostgreSQL reads the (status, next_run_at) index with a plain index scan, which marks
// the ended executions' dead `running` entries once instead of visiting each of them on every
// poll until VACUUM. A kick (one execution by id) stays a single autocommit statement.
import type { SqlExecutor, SqlQuery, SqlResult } from '../../../platform/db/sql';
import { executionLeaseStore } from '../../../subgraphs/workflow/execution-lease.store';

interface Seen {
  text: string;
  inTransaction: number | null;
}

function recordingSql(rows: Record<string, unknown>[]): { sql: SqlExecutor; seen: Seen[] } {
  const seen: Seen[] = [];
  let transactions = 0;
  const on = (inTransaction: number | null): SqlQuery => ({
    async query<Row>(text: string): Promise<SqlResult<Row>> {
      seen.push({ text: text.replace(/\s+/g, ' ').trim(), inTransaction });
      return { rows: (text.includes('UPDATE workflow_executions') ? rows : []) as Row[], rowCount: 0 };
    },
    async exec() {
      throw new Error('not expected');
    },
  });
  const sql: SqlExecutor = {
    ...on(null),
    transaction: (work) => work(on(++transactions)),
  };
  return { sql, seen };
}

it("the poll's claim turns bitmap scans off in its own transaction, before the claim", async () => {
  const { sql, seen } = recordingSql([{ id: 'e1', tenant_id: 't1' }]);
  const claims = await executionLeaseStore(sql).claimRunnableAcrossTenants('owner-1', 30_000, 16);
  expect(claims).toEqual([{ id: 'e1', tenantId: 't1' }]);
  expect(seen.map((s) => s.text.split(' ').slice(0, 3).join(' '))).toEqual([
    'SET LOCAL enable_bitmapscan',
    'UPDATE workflow_executions SET',
  ]);
  expect(seen[0]!.inTransaction).not.toBeNull();
  expect(seen[1]!.inTransaction).toBe(seen[0]!.inTransaction);
});

it('a kick claims its one execution in a single autocommit statement', async () => {
  const { sql, seen } = recordingSql([{ id: 'e2', tenant_id: 't2' }]);
  const claims = await executionLeaseStore(sql).claimRunnableAcrossTenants('owner-1', 30_000, 1, 'e2');
  expect(claims).toEqual([{ id: 'e2', tenantId: 't2' }]);
  expect(seen).toHaveLength(1);
  expect(seen[0]!.inTransaction).toBeNull();
  expect(seen[0]!.text).toContain('AND id = $4::uuid');
});

it('on PGlite (one connection shared by every executor) the poll claims in one autocommit statement', async () => {
  const { sql, seen } = recordingSql([]);
  await executionLeaseStore(sql, 'pglite').claimRunnableAcrossTenants('owner-1', 30_000, 16);
  expect(seen).toHaveLength(1);
  expect(seen[0]!.inTransaction).toBeNull();
});
