// The only code that reads and writes scan schedules. The tenant id comes first in every read of
// a tenant's rows; `due` and `listening` are the scheduler's cross-tenant look-ups and return keys
// only, which it then reads tenant by tenant.
import type { SqlQuery } from '../../platform/db/sql';
import type { ScanEventTrigger, ScanSchedule } from './scanner.types';

interface Row {
  id: string;
  tenant_id: string;
  target_id: string;
  pack_id: string;
  every_seconds: number | null;
  on_events: string[];
  due_ms: number | null;
  due_trigger: string | null;
  last_run_ms: number | null;
  last_scan_id: string | null;
  last_error: string | null;
  created_by: string;
  created_ms: number;
}

const COLUMNS = `id, tenant_id, target_id, pack_id, every_seconds, on_events,
  (extract(epoch FROM due_at) * 1000)::float8 AS due_ms, due_trigger,
  (extract(epoch FROM last_run_at) * 1000)::float8 AS last_run_ms, last_scan_id, last_error, created_by,
  (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`;

const date = (ms: number | null) => (ms === null ? null : new Date(Number(ms)));

const toSchedule = (r: Row): ScanSchedule => ({
  id: r.id,
  tenantId: r.tenant_id,
  targetId: r.target_id,
  packId: r.pack_id,
  everySeconds: r.every_seconds === null ? null : Number(r.every_seconds),
  onEvents: r.on_events as ScanEventTrigger[],
  dueAt: date(r.due_ms),
  dueTrigger: r.due_trigger as ScanSchedule['dueTrigger'],
  lastRunAt: date(r.last_run_ms),
  lastScanId: r.last_scan_id,
  lastError: r.last_error,
  createdBy: r.created_by,
  createdAt: new Date(Number(r.created_ms)),
});

export const scheduleStore = {
  async insert(
    q: SqlQuery,
    tenantId: string,
    s: Pick<ScanSchedule, 'id' | 'targetId' | 'packId' | 'everySeconds' | 'onEvents' | 'dueAt' | 'createdBy'>,
  ): Promise<void> {
    await q.query(
      `INSERT INTO scanner_schedules (id, tenant_id, target_id, pack_id, every_seconds, on_events, due_at, due_trigger, created_by)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, CASE WHEN $7::timestamptz IS NULL THEN NULL ELSE 'schedule' END, $8)`,
      [s.id, tenantId, s.targetId, s.packId, s.everySeconds, s.onEvents, s.dueAt, s.createdBy],
    );
  },

  async get(q: SqlQuery, tenantId: string, id: string): Promise<ScanSchedule | null> {
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM scanner_schedules WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
    ]);
    return rows[0] ? toSchedule(rows[0]) : null;
  },

  async list(q: SqlQuery, tenantId: string): Promise<ScanSchedule[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${COLUMNS} FROM scanner_schedules WHERE tenant_id = $1 ORDER BY created_at, id`,
      [tenantId],
    );
    return rows.map(toSchedule);
  },

  async remove(q: SqlQuery, tenantId: string, id: string): Promise<boolean> {
    const r = await q.query(`DELETE FROM scanner_schedules WHERE tenant_id = $1 AND id = $2 RETURNING id`, [
      tenantId,
      id,
    ]);
    return r.rows.length > 0;
  },

  /** Schedules whose time has come, oldest first (keys only). */
  async due(q: SqlQuery, now: Date, limit: number): Promise<{ tenantId: string; id: string }[]> {
    const { rows } = await q.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM scanner_schedules WHERE due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at, id LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
  },

  /**
   * Makes every schedule listening to `event` due now: the tenant's, or every tenant's when the
   * event is the platform's (a config change at an operator layer). A schedule already due keeps
   * its earlier time, so a burst of events is one scan. Returns how many became due.
   */
  async trigger(q: SqlQuery, tenantId: string | null, event: ScanEventTrigger, now: Date): Promise<number> {
    const r = await q.query(
      `UPDATE scanner_schedules SET due_at = $3, due_trigger = $2
       WHERE ($1::text IS NULL OR tenant_id = $1) AND $2 = ANY(on_events) AND (due_at IS NULL OR due_at > $3)
       RETURNING id`,
      [tenantId, event, now],
    );
    return r.rows.length;
  },

  /**
   * Claims a due schedule for one run: moves `due_at` to its next time (or clears it) if it is
   * still the one read. False when another replica claimed it first.
   */
  async claim(q: SqlQuery, tenantId: string, s: ScanSchedule, next: Date | null): Promise<boolean> {
    const r = await q.query(
      `UPDATE scanner_schedules SET due_at = $4, due_trigger = CASE WHEN $4::timestamptz IS NULL THEN NULL ELSE 'schedule' END
       WHERE tenant_id = $1 AND id = $2 AND due_at = $3 RETURNING id`,
      [tenantId, s.id, s.dueAt, next],
    );
    return r.rows.length > 0;
  },

  async recordRun(
    q: SqlQuery,
    tenantId: string,
    id: string,
    run: { at: Date; scanId: string | null; error: string | null },
  ): Promise<void> {
    await q.query(
      `UPDATE scanner_schedules SET last_run_at = $3, last_scan_id = COALESCE($4, last_scan_id), last_error = $5
       WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, run.at, run.scanId, run.error],
    );
  },
};
