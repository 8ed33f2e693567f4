// SQL of the notice relay (table notice_outbox). Producers write rows in their own transactions
// (notice.writer.ts); this store claims due rows for one relay pass and records the outcome.
import type { SqlExecutor, SqlQuery } from '../db/sql';
import type { NoticeEnvelope } from './notice.envelope';

export interface NoticeRow {
  id: string;
  tenant_id: string;
  subject: string;
  topic: string;
  envelope: NoticeEnvelope;
  attempts: number;
}

export interface ClaimedNotices {
  /** Rows this pass may publish, in id order; for each (tenant, subject) no earlier row is left unpublished. */
  rows: NoticeRow[];
  /** The claim's transaction: what is written with it (the backbone append) commits with the marks. */
  tx: SqlQuery;
  markPublished(ids: readonly string[]): Promise<void>;
  markFailed(id: string, delayMs: number, error: string): Promise<void>;
}

export interface NoticeStore {
  /**
   * Runs `work` in one transaction over the due rows it claimed. Rows are locked with
   * `FOR UPDATE SKIP LOCKED`, so relays in several processes share the work without waiting on
   * each other; a claimed row whose (tenant, subject) has an earlier unpublished row that this pass
   * did not claim (another relay holds it, or it waits for a retry) is left for later, so each
   * subject's notices are published in the order they were written.
   */
  claim<T>(services: string[] | null, limit: number, work: (claimed: ClaimedNotices) => Promise<T>): Promise<T>;
  /**
   * Whether any row is due: one autocommit read (no transaction, no lock) that an idle poll
   * makes instead of a claim's BEGIN, SELECT ... FOR UPDATE and COMMIT.
   */
  hasDue(services: string[] | null): Promise<boolean>;
  /** Deletes rows published before `before`; returns how many. */
  prunePublished(services: string[] | null, before: Date): Promise<number>;
}

const SERVICE_FILTER = '($1::text[] IS NULL OR service = ANY($1::text[]))';

/**
 * The claim's service condition. One service (each service's own relay) is `service = $1`, so the
 * partial index of unpublished rows by (service, id) yields them in id order and the LIMIT stops
 * the scan; with `= ANY(...)` or an OR the planner walked the primary key through every published
 * row instead (~200 ms a claim over 30k rows, per relay, several times a second).
 */
function claimFilter(services: string[] | null): { filter: string; params: unknown[] } {
  if (services === null) return { filter: 'TRUE', params: [] };
  if (services.length === 1) return { filter: 'service = $1::text', params: [services[0]] };
  return { filter: 'service = ANY($1::text[])', params: [services] };
}

function claimed(q: SqlQuery, rows: NoticeRow[]): ClaimedNotices {
  return {
    rows,
    tx: q,
    async markPublished(ids) {
      if (ids.length === 0) return;
      await q.query(
        'UPDATE notice_outbox SET published_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ANY($1::int8[])',
        [ids],
      );
    },
    async markFailed(id, delayMs, error) {
      await q.query(
        `UPDATE notice_outbox SET attempts = attempts + 1, last_error = $3,
                next_attempt_at = now() + ($2::float8 * interval '1 millisecond') WHERE id = $1::int8`,
        [id, delayMs, error.slice(0, 2000)],
      );
    },
  };
}

/**
 * PGlite is one connection in one process: passes of several relays there run one after another
 * (chained per database) rather than queueing transactions on its single connection, where a
 * relay's transaction would hold up every other query of the process while it waits on the bus.
 */
const pgliteChains = new WeakMap<SqlExecutor, Promise<unknown>>();

function serialized<T>(sql: SqlExecutor, run: () => Promise<T>): Promise<T> {
  const prev = pgliteChains.get(sql) ?? Promise.resolve();
  const next = prev.then(run, run);
  pgliteChains.set(
    sql,
    next.catch(() => undefined),
  );
  return next;
}

export function createNoticeStore(db: { sql: SqlExecutor; kind?: string }): NoticeStore {
  const { sql } = db;
  const once = <T>(run: () => Promise<T>) => (db.kind === 'pglite' ? serialized(sql, run) : run());
  return {
    claim(services, limit, work) {
      return once(() =>
        sql.transaction(async (tx) => {
          // One statement: the claim, and for each claimed row whether an earlier unpublished row
          // of its subject lies outside the claim. The check is a subplan per claimed row (an
          // index probe of the unpublished-by-subject index): as a second statement over arrays
          // the planner hashed every row the (published_at, ...) index still listed as
          // unpublished, thousands of heap pages a pass until vacuum caught up.
          // ORDER BY the table's bigint id, not the text alias (which would put 10 before 2).
          const { filter, params } = claimFilter(services);
          const locked = await tx.query<NoticeRow & { blocked: boolean }>(
            `WITH claimed AS (
               SELECT id, tenant_id, subject, topic, envelope, attempts FROM notice_outbox
                WHERE published_at IS NULL AND next_attempt_at <= now() AND ${filter}
                ORDER BY notice_outbox.id LIMIT $${params.length + 1} FOR UPDATE SKIP LOCKED
             )
             SELECT c.id::text AS id, c.tenant_id, c.subject, c.topic, c.envelope, c.attempts,
                    EXISTS (SELECT 1 FROM notice_outbox e
                             WHERE e.tenant_id = c.tenant_id AND e.subject = c.subject AND e.id < c.id
                               AND e.published_at IS NULL AND e.id NOT IN (SELECT id FROM claimed)) AS blocked
               FROM claimed c ORDER BY c.id`,
            [...params, limit],
          );
          // Rows with an earlier unpublished row of their subject outside this claim wait: every
          // later row of that subject has the same earlier row, so all of them are left.
          const rows: NoticeRow[] = [];
          for (const { blocked, ...row } of locked.rows) if (!blocked) rows.push(row);
          return work(claimed(tx, rows));
        }),
      );
    },
    async hasDue(services) {
      const { filter, params } = claimFilter(services);
      const res = await sql.query<{ due: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM notice_outbox
                         WHERE published_at IS NULL AND next_attempt_at <= now() AND ${filter}) AS due`,
        params,
      );
      return res.rows[0]?.due === true;
    },
    async prunePublished(services, before) {
      const res = await once(() =>
        sql.query(`DELETE FROM notice_outbox WHERE published_at < $2 AND ${SERVICE_FILTER}`, [services, before]),
      );
      return res.rowCount;
    },
  };
}
