// Process metrics read from the database at scrape time: the pool's connections and the outbox
// lag (how many audit events and notices wait, and how old the oldest is). One query per scrape
// over the partial indexes the relays use; a failing query leaves the gauges as they were.
import type { Database } from '../db/database';
import { processGauge } from './metrics';

export function registerDatabaseMetrics(db: Database): void {
  const pool = db.pool;
  if (pool) {
    processGauge('db_pool_connections', 'Database pool connections by state', ['state'], (g) => {
      g.set({ state: 'total' }, pool.totalCount);
      g.set({ state: 'idle' }, pool.idleCount);
      g.set({ state: 'waiting' }, pool.waitingCount);
    });
  }
  if (db.kind === 'none') return;
  const lag = { pending: new Map<string, number>(), age: new Map<string, number>() };
  // Both gauges are collected in one scrape: they share one query.
  let inFlight: Promise<void> | undefined;
  const fresh = () =>
    (inFlight ??= read()
      .catch(() => undefined)
      .finally(() => {
        inFlight = undefined;
      }));
  const read = async () => {
    const res = await db.sql.query<{ queue: string; pending: number; age: number | null }>(
      `SELECT 'audit' AS queue, count(*)::float8 AS pending, extract(epoch FROM now() - min(created_at))::float8 AS age
         FROM outbox_events WHERE delivered_at IS NULL AND dead_lettered_at IS NULL
       UNION ALL
       SELECT 'notice', count(*)::float8, extract(epoch FROM now() - min(created_at))::float8
         FROM notice_outbox WHERE published_at IS NULL`,
    );
    for (const r of res.rows) {
      lag.pending.set(r.queue, Number(r.pending));
      lag.age.set(r.queue, Number(r.age ?? 0));
    }
  };
  processGauge(
    'outbox_pending_events',
    'Outbox rows not yet delivered, by queue (audit → ledger, notice → bus)',
    ['queue'],
    async (g) => {
      await fresh();
      for (const [queue, n] of lag.pending) g.set({ queue }, n);
    },
  );
  processGauge('outbox_lag_seconds', 'Age of the oldest undelivered outbox row, by queue', ['queue'], async (g) => {
    await fresh();
    for (const [queue, s] of lag.age) g.set({ queue }, s);
  });
}
