// The only code touching observability_spans. Reads take the tenant first: a tenant sees a trace
// only when one of its spans is the tenant's (the request spans carry `platform.tenant_id`).
import type { SqlExecutor } from '../../platform/db/sql';
import type { SpanRecord, SpanSearch } from './observability.types';

interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  tenant_id: string | null;
  service: string;
  name: string;
  start_time: Date | string;
  duration_ms: number;
  error: boolean;
  attributes: Record<string, unknown> | string;
}

const COLUMNS = `trace_id, span_id, parent_span_id, tenant_id, service, name, start_time, duration_ms, error, attributes`;

function toRecord(r: SpanRow): SpanRecord {
  return {
    traceId: r.trace_id,
    spanId: r.span_id,
    parentSpanId: r.parent_span_id,
    tenantId: r.tenant_id,
    service: r.service,
    name: r.name,
    startTime: new Date(r.start_time).toISOString(),
    durationMs: Number(r.duration_ms),
    error: r.error,
    attributes: typeof r.attributes === 'string' ? (JSON.parse(r.attributes) as Record<string, unknown>) : r.attributes,
  };
}

/**
 * A trace by id ($1 tenant, $2 trace id, $3 limit): both lookups are probes of the key
 * (trace_id, span_id), so the cost is a trace's rows whatever the table's size; the sort is over
 * those rows only. The id is cast to the column's type: a parameter typed `text` (some drivers
 * send one) would compare as text, which the key cannot serve, and the planner would read every
 * span of the tenant instead (EXPLAIN showed 1,500 pages for 10 rows at 1M spans).
 * `npm run bench -- observability trace-query` checks this plan.
 */
export const TRACE_QUERY = `SELECT ${COLUMNS} FROM observability_spans
  WHERE trace_id = $2::bpchar AND (tenant_id = $1 OR tenant_id IS NULL)
    AND EXISTS (SELECT 1 FROM observability_spans o WHERE o.trace_id = $2::bpchar AND o.tenant_id = $1)
  ORDER BY start_time, span_id LIMIT $3`;

export interface SpanStore {
  insert(spans: readonly SpanRecord[]): Promise<void>;
  /**
   * The trace's spans, start order, when one of them is the tenant's; else none. Spans of another
   * tenant are left out even then (a span posted into someone else's trace id shows them nothing of it).
   */
  trace(tenantId: string, traceId: string, limit: number): Promise<SpanRecord[]>;
  search(
    tenantId: string,
    search: Required<Pick<SpanSearch, 'from' | 'to' | 'limit'>> & SpanSearch,
  ): Promise<SpanRecord[]>;
  /** Deletes spans received before `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

export function createSpanStore(sql: SqlExecutor): SpanStore {
  return {
    // One statement per body: every column as one array parameter, unnested into rows (a
    // multi-row VALUES list would need 10 parameters a span and a parse of each). A span already
    // stored (an exporter's retry) is skipped.
    async insert(spans) {
      if (spans.length === 0) return;
      const col = <K extends keyof SpanRecord>(k: K) => spans.map((s) => s[k]);
      await sql.query(
        `INSERT INTO observability_spans (${COLUMNS})
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                              $7::timestamptz[], $8::float8[], $9::bool[], $10::jsonb[])
         ON CONFLICT (trace_id, span_id) DO NOTHING`,
        [
          col('traceId'),
          col('spanId'),
          col('parentSpanId'),
          col('tenantId'),
          col('service'),
          col('name'),
          col('startTime'),
          col('durationMs'),
          col('error'),
          spans.map((s) => JSON.stringify(s.attributes)),
        ],
      );
    },
    async trace(tenantId, traceId, limit) {
      const res = await sql.query<SpanRow>(TRACE_QUERY, [tenantId, traceId, limit]);
      return res.rows.map(toRecord);
    },
    async search(tenantId, s) {
      const params: unknown[] = [tenantId, s.from, s.to];
      const where = ['tenant_id = $1', 'start_time >= $2::timestamptz', 'start_time < $3::timestamptz'];
      const add = (clause: string, value: unknown) => {
        params.push(value);
        where.push(clause.replace('?', `$${params.length}`));
      };
      if (s.service !== undefined) add('service = ?', s.service);
      if (s.operation !== undefined) add('name = ?', s.operation);
      if (s.minDurationMs !== undefined) add('duration_ms >= ?', s.minDurationMs);
      if (s.error !== undefined) add('error = ?', s.error);
      params.push(s.limit);
      const res = await sql.query<SpanRow>(
        `SELECT ${COLUMNS} FROM observability_spans WHERE ${where.join(' AND ')}
          ORDER BY start_time DESC, span_id DESC LIMIT $${params.length}`,
        params,
      );
      return res.rows.map(toRecord);
    },
    async prune(before) {
      const res = await sql.query('DELETE FROM observability_spans WHERE received_at < $1', [before]);
      return res.rowCount;
    },
  };
}
