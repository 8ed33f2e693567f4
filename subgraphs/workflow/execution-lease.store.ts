// Executors' leases on executions (docs/workflow.md, "Durable execution"): an executor drives an
// execution only while `lease_owner` names it. Claims sweep every tenant's runnable work (named
// `...AcrossTenants`) and hand back each claim's tenant, which every later call then takes.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';

export function executionLeaseStore(sql: SqlExecutor, kind: 'pglite' | 'postgres' | 'none' = 'postgres') {
  return {
    /**
     * Whether a poll has anything to do, in one read of every tenant's rows: a due timer, and a
     * runnable execution (the claim's own condition, without its locks). Each is a superset of
     * what `takeDueTimersAcrossTenants` and the claim would take, so a poll that skips them on a
     * `false` leaves nothing behind; an idle poll is this one statement instead of two
     * transactions (seven statements, four times a second).
     */
    async dueWorkAcrossTenants(): Promise<{ timers: boolean; runnable: boolean }> {
      const res = await sql.query<{ timers: boolean; runnable: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM workflow_timers WHERE fire_at <= now()) AS timers,
           EXISTS (SELECT 1 FROM workflow_executions
             WHERE status IN ('running', 'compensating') AND (next_run_at IS NULL OR next_run_at <= now())
               AND (lease_owner IS NULL OR lease_expires_at < now())) AS runnable`,
        [],
        { prepareAs: 'workflow_due_work' },
      );
      const row = res.rows[0];
      return { timers: row?.timers ?? true, runnable: row?.runnable ?? true };
    },

    /**
     * Claims up to `limit` runnable executions of any tenant for `owner`: running or compensating,
     * due (retry timer passed), and unleased or with an expired lease. SKIP LOCKED lets several
     * executors claim at once without waiting on, or taking, each other's rows. Each claim names
     * its tenant, which the executor's reads then take.
     */
    async claimRunnableAcrossTenants(
      owner: string,
      leaseMs: number,
      limit: number,
      onlyId?: string,
    ): Promise<{ id: string; tenantId: string }[]> {
      const claim = (q: SqlQuery) =>
        q.query<{ id: string; tenant_id: string }>(
          `UPDATE workflow_executions SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
         WHERE id IN (
           SELECT id FROM workflow_executions
           WHERE status IN ('running', 'compensating') AND (next_run_at IS NULL OR next_run_at <= now())
             AND (lease_owner IS NULL OR lease_expires_at < now()) ${onlyId ? 'AND id = $4::uuid' : ''}
           ORDER BY next_run_at NULLS FIRST LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id::text, tenant_id`,
          onlyId ? [owner, leaseMs, limit, onlyId] : [owner, leaseMs, limit],
        );
      // One execution (a kick) is a primary-key probe. The poll's sweep is planned as a plain index
      // scan, never a bitmap scan: every execution leaves its `running` version behind in the
      // (status, next_run_at) index when it ends, and until VACUUM a bitmap scan visits all of them
      // on every poll (8,000 ended executions: 1,800 heap pages, ~200 ms of the server's CPU four
      // times a second). A plain index scan marks each dead entry the first time it sees it and
      // skips it after that (the same poll: 30 pages, ~4 ms). Not on PGlite: its one connection is
      // shared by every executor of the process, and a claim in a transaction there let two
      // executors' claims interleave (the two-executors test ran steps twice).
      const res =
        onlyId || kind === 'pglite'
          ? await claim(sql)
          : await sql.transaction(async (tx) => {
              await tx.query('SET LOCAL enable_bitmapscan = off');
              return claim(tx);
            });
      return res.rows.map((r) => ({ id: r.id, tenantId: r.tenant_id }));
    },

    async renewLease(tenantId: string, id: string, owner: string, leaseMs: number): Promise<boolean> {
      const res = await sql.query(
        'UPDATE workflow_executions SET lease_expires_at = now() + make_interval(secs => $4::float8 / 1000) WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3',
        [tenantId, id, owner, leaseMs],
      );
      return res.rowCount > 0;
    },

    /** Gives the lease up; with `retryAfterMs`, the execution is not claimed again before that many ms. */
    async releaseLease(tenantId: string, id: string, owner: string, retryAfterMs: number | null = null): Promise<void> {
      await sql.query(
        `UPDATE workflow_executions SET lease_owner = NULL, lease_expires_at = NULL,
           next_run_at = CASE WHEN $4::float8 IS NULL THEN next_run_at ELSE now() + make_interval(secs => $4::float8 / 1000) END
         WHERE tenant_id = $1 AND id = $2::uuid AND lease_owner = $3`,
        [tenantId, id, owner, retryAfterMs],
      );
    },

    /** Every lease (PGlite only: its lock file proves no other process holds any). */
    async releaseAllLeases(): Promise<number> {
      const res = await sql.query(
        'UPDATE workflow_executions SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL',
      );
      return res.rowCount;
    },
  };
}
