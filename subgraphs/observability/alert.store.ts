// The only code touching observability_alert_rules, observability_alert_states and
// observability_silences. Every read of a tenant's data takes the tenant first; the evaluator's
// reads over all tenants (enabledRules, activeSilences) are named so, and serve no caller.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { sqlInsertNotices, type PendingNotice } from '../../platform/outbox/notice.writer';
import type { AlertRule, AlertState, Silence } from './alert.types';

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());
const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

function toRule(r: Row): AlertRule {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    scope: r.scope as AlertRule['scope'],
    name: r.name as string,
    kind: r.kind as AlertRule['kind'],
    metric: r.metric as string,
    matchers: json(r.matchers),
    denominatorMetric: (r.denominator_metric as string | null) ?? null,
    denominatorMatchers: r.denominator_matchers == null ? null : json(r.denominator_matchers),
    op: r.op as AlertRule['op'],
    threshold: Number(r.threshold),
    windowSeconds: Number(r.window_seconds),
    forSeconds: Number(r.for_seconds),
    severity: r.severity as string,
    summary: r.summary as string,
    enabled: r.enabled as boolean,
    createdBy: r.created_by as string,
    createdAt: iso(r.created_at)!,
  };
}

function toState(r: Row): AlertState {
  return {
    ruleId: r.rule_id as string,
    tenantId: r.tenant_id as string,
    state: r.state as AlertState['state'],
    activeSince: iso(r.active_since),
    firedAt: iso(r.fired_at),
    resolvedAt: iso(r.resolved_at),
    value: r.value === null ? null : Number(r.value),
    notified: r.notified as boolean,
    silencedBy: (r.silenced_by as string | null) ?? null,
    evaluatedAt: iso(r.evaluated_at)!,
  };
}

function toSilence(r: Row): Silence {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    matchers: json(r.matchers),
    startsAt: iso(r.starts_at)!,
    endsAt: iso(r.ends_at)!,
    createdBy: r.created_by as string,
    comment: r.comment as string,
    createdAt: iso(r.created_at)!,
  };
}

export interface AlertStore {
  insertRule(rule: AlertRule, maxPerTenant: number): Promise<'ok' | 'duplicate' | 'full'>;
  rules(tenantId: string): Promise<AlertRule[]>;
  deleteRule(tenantId: string, id: string): Promise<boolean>;
  states(tenantId: string): Promise<AlertState[]>;
  insertSilence(silence: Silence, maxPerTenant: number): Promise<'ok' | 'full'>;
  silences(tenantId: string, activeAt: Date | null): Promise<Silence[]>;
  expireSilence(tenantId: string, id: string, at: Date): Promise<Silence | null>;
  /** Evaluator: every enabled rule with its state. */
  enabledRules(): Promise<{ rule: AlertRule; state: AlertState | null }[]>;
  /** Evaluator: every silence in force at `at`. */
  activeSilences(at: Date): Promise<Silence[]>;
  /** Evaluator: a rule's new state, and its notice if one is owed, in one transaction. */
  saveState(state: AlertState, notice: PendingNotice | null): Promise<void>;
}

const STATE_COLUMNS = `rule_id, tenant_id, state, active_since, fired_at, resolved_at, value, notified, silenced_by, evaluated_at`;

async function upsertState(q: SqlQuery, s: AlertState): Promise<void> {
  await q.query(
    `INSERT INTO observability_alert_states (${STATE_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (rule_id) DO UPDATE SET state = EXCLUDED.state, active_since = EXCLUDED.active_since,
       fired_at = EXCLUDED.fired_at, resolved_at = EXCLUDED.resolved_at, value = EXCLUDED.value,
       notified = EXCLUDED.notified, silenced_by = EXCLUDED.silenced_by, evaluated_at = EXCLUDED.evaluated_at`,
    [
      s.ruleId,
      s.tenantId,
      s.state,
      s.activeSince,
      s.firedAt,
      s.resolvedAt,
      s.value !== null && Number.isFinite(s.value) ? s.value : null,
      s.notified,
      s.silencedBy,
      s.evaluatedAt,
    ],
  );
}

export function createAlertStore(sql: SqlExecutor): AlertStore {
  return {
    insertRule: (r, max) =>
      sql.transaction(async (tx) => {
        // Serialises a tenant's rule creations, so the count check holds under concurrency.
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('observability.rules:' || $1::text))`, [r.tenantId]);
        const count = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM observability_alert_rules WHERE tenant_id = $1`,
          [r.tenantId],
        );
        if ((count.rows[0]?.n ?? 0) >= max) return 'full' as const;
        const res = await tx.query(
          `INSERT INTO observability_alert_rules (id, tenant_id, scope, name, kind, metric, matchers, denominator_metric,
             denominator_matchers, op, threshold, window_seconds, for_seconds, severity, summary, enabled, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10, $11, $12, $13, $14, $15, $16, $17, $18)
           ON CONFLICT (tenant_id, name) DO NOTHING`,
          [
            r.id,
            r.tenantId,
            r.scope,
            r.name,
            r.kind,
            r.metric,
            JSON.stringify(r.matchers),
            r.denominatorMetric,
            r.denominatorMatchers === null ? null : JSON.stringify(r.denominatorMatchers),
            r.op,
            r.threshold,
            r.windowSeconds,
            r.forSeconds,
            r.severity,
            r.summary,
            r.enabled,
            r.createdBy,
            r.createdAt,
          ],
        );
        return res.rowCount === 1 ? ('ok' as const) : ('duplicate' as const);
      }),
    async rules(tenantId) {
      const res = await sql.query<Row>(
        `SELECT * FROM observability_alert_rules WHERE tenant_id = $1 ORDER BY name LIMIT 1000`,
        [tenantId],
      );
      return res.rows.map(toRule);
    },
    deleteRule: (tenantId, id) =>
      sql.transaction(async (tx) => {
        await tx.query(`DELETE FROM observability_alert_states WHERE rule_id = $1 AND tenant_id = $2`, [id, tenantId]);
        const res = await tx.query(`DELETE FROM observability_alert_rules WHERE id = $1 AND tenant_id = $2`, [
          id,
          tenantId,
        ]);
        return res.rowCount === 1;
      }),
    async states(tenantId) {
      const res = await sql.query<Row>(`SELECT * FROM observability_alert_states WHERE tenant_id = $1`, [tenantId]);
      return res.rows.map(toState);
    },
    insertSilence: (s, max) =>
      sql.transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('observability.silences:' || $1::text))`, [s.tenantId]);
        const count = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM observability_silences WHERE tenant_id = $1 AND ends_at > $2`,
          [s.tenantId, s.createdAt],
        );
        if ((count.rows[0]?.n ?? 0) >= max) return 'full' as const;
        await tx.query(
          `INSERT INTO observability_silences (id, tenant_id, matchers, starts_at, ends_at, created_by, comment, created_at)
           VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8)`,
          [s.id, s.tenantId, JSON.stringify(s.matchers), s.startsAt, s.endsAt, s.createdBy, s.comment, s.createdAt],
        );
        return 'ok' as const;
      }),
    async silences(tenantId, activeAt) {
      const res = await sql.query<Row>(
        activeAt
          ? `SELECT * FROM observability_silences WHERE tenant_id = $1 AND ends_at > $2 ORDER BY ends_at LIMIT 1000`
          : `SELECT * FROM observability_silences WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1000`,
        activeAt ? [tenantId, activeAt.toISOString()] : [tenantId],
      );
      return res.rows.map(toSilence);
    },
    async expireSilence(tenantId, id, at) {
      const res = await sql.query<Row>(
        `UPDATE observability_silences SET ends_at = LEAST(ends_at, $3) WHERE id = $1 AND tenant_id = $2 RETURNING *`,
        [id, tenantId, at.toISOString()],
      );
      return res.rows[0] ? toSilence(res.rows[0]) : null;
    },
    async enabledRules() {
      const res = await sql.query<Row>(
        `SELECT r.*, row_to_json(s.*) AS state_row FROM observability_alert_rules r
           LEFT JOIN observability_alert_states s ON s.rule_id = r.id
          WHERE r.enabled ORDER BY r.tenant_id, r.name`,
      );
      return res.rows.map((r) => ({
        rule: toRule(r),
        state: r.state_row == null ? null : toState(json<Row>(r.state_row)),
      }));
    },
    async activeSilences(at) {
      const res = await sql.query<Row>(
        `SELECT * FROM observability_silences WHERE starts_at <= $1 AND ends_at > $1 LIMIT 10000`,
        [at.toISOString()],
      );
      return res.rows.map(toSilence);
    },
    saveState: (state, notice) =>
      sql.transaction(async (tx) => {
        await upsertState(tx, state);
        if (notice) await sqlInsertNotices(tx, [notice]);
      }),
  };
}
