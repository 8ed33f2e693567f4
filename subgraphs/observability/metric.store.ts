// The only code touching observability_metric_series and observability_metric_samples. Reads take
// the tenant first ('' = platform series). Writes hold each tenant to its series budget: new series
// of a tenant are created under a per-tenant advisory lock, only as many as its budget still allows,
// so a label explosion fills that tenant's budget and touches nobody else's.
import { createHash } from 'node:crypto';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import type { Matchers } from './alert.types';
import type { MetricPoint } from './metric.types';

export interface StoredPoint {
  seriesId: string;
  labels: Record<string, string>;
  /** The step's index: floor(epoch seconds / step). */
  bucket: number;
  value: number;
}

export interface LatestSample {
  tenant: string;
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricStore {
  /** Stores the points whose series exist or fit their tenant's budget; answers how many were dropped. */
  insert(points: readonly MetricPoint[], seriesBudget: (tenant: string) => number): Promise<{ rejected: number }>;
  /** The matching series' points (last value per step), series in id order; at most `maxSeries` + 1 series. */
  points(
    tenant: string,
    q: { metric: string; matchers: Matchers; from: Date; to: Date; stepSeconds: number; maxSeries: number },
  ): Promise<StoredPoint[]>;
  /** Every tenant's latest sample since `since` of the metrics named (the alert evaluator's source). */
  latest(names: readonly string[], since: Date): Promise<LatestSample[]>;
  /** How many series a tenant holds. */
  seriesCount(tenant: string): Promise<number>;
  /** Deletes samples older than `before`, and series not seen since. */
  prune(before: Date): Promise<number>;
}

/** The series' identity within (tenant, name): labels sorted by name, hashed. */
export function labelsKey(labels: Record<string, string>): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((k) => [k, labels[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

interface SeriesKey {
  tenant: string;
  name: string;
  key: string;
  labels: Record<string, string>;
}
const idOf = (s: { tenant: string; name: string; key: string }) => `${s.tenant}\u0000${s.name}\u0000${s.key}`;

async function existingIds(tx: SqlQuery, series: readonly SeriesKey[], into: Map<string, string>): Promise<void> {
  if (series.length === 0) return;
  const res = await tx.query<{ id: string; tenant_id: string; name: string; labels_key: string }>(
    `SELECT s.id::text AS id, s.tenant_id, s.name, s.labels_key
       FROM observability_metric_series s
       JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(tenant_id, name, labels_key)
         ON s.tenant_id = k.tenant_id AND s.name = k.name AND s.labels_key = k.labels_key`,
    [series.map((s) => s.tenant), series.map((s) => s.name), series.map((s) => s.key)],
  );
  for (const r of res.rows) into.set(idOf({ tenant: r.tenant_id, name: r.name, key: r.labels_key }), r.id);
}

/** Creates as many of one tenant's new series as its budget allows, under the tenant's lock. */
async function createWithinBudget(
  tx: SqlQuery,
  tenant: string,
  fresh: readonly SeriesKey[],
  budget: number,
  into: Map<string, string>,
): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('observability.series:' || $1))`, [tenant]);
  // Another writer may have created some of them while this one waited.
  await existingIds(tx, fresh, into);
  const missing = fresh.filter((s) => !into.has(idOf(s)));
  if (missing.length === 0) return;
  const held = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM observability_metric_series WHERE tenant_id = $1`,
    [tenant],
  );
  const room = Math.max(0, budget - Number(held.rows[0]!.n));
  const admitted = missing.slice(0, room);
  if (admitted.length === 0) return;
  const res = await tx.query<{ id: string; name: string; labels_key: string }>(
    `INSERT INTO observability_metric_series (tenant_id, name, labels, labels_key)
     SELECT $1, * FROM unnest($2::text[], $3::jsonb[], $4::text[])
     ON CONFLICT (tenant_id, name, labels_key) DO NOTHING
     RETURNING id::text AS id, name, labels_key`,
    [tenant, admitted.map((s) => s.name), admitted.map((s) => JSON.stringify(s.labels)), admitted.map((s) => s.key)],
  );
  for (const r of res.rows) into.set(idOf({ tenant, name: r.name, key: r.labels_key }), r.id);
}

export function createMetricStore(sql: SqlExecutor): MetricStore {
  return {
    async insert(points, seriesBudget) {
      if (points.length === 0) return { rejected: 0 };
      const series = new Map<string, SeriesKey>();
      const keyed = points.map((p) => {
        const s = { tenant: p.tenant, name: p.name, key: labelsKey(p.labels), labels: p.labels };
        const id = idOf(s);
        if (!series.has(id)) series.set(id, s);
        return { id, p };
      });
      return sql.transaction(async (tx) => {
        const ids = new Map<string, string>();
        await existingIds(tx, [...series.values()], ids);
        const freshByTenant = new Map<string, SeriesKey[]>();
        for (const [id, s] of series) {
          if (ids.has(id)) continue;
          const list = freshByTenant.get(s.tenant) ?? [];
          list.push(s);
          freshByTenant.set(s.tenant, list);
        }
        // Tenants in a fixed order: two bodies never wait on each other's locks in a cycle.
        for (const tenant of [...freshByTenant.keys()].sort())
          await createWithinBudget(tx, tenant, freshByTenant.get(tenant)!, seriesBudget(tenant), ids);
        // One value per series and time (the last one sent): ON CONFLICT may touch a row once per statement.
        const samples = new Map<string, { series: string; time: number; value: number }>();
        let rejected = 0;
        for (const { id, p } of keyed) {
          const seriesId = ids.get(id);
          if (seriesId === undefined) rejected++;
          else samples.set(`${seriesId}@${p.time}`, { series: seriesId, time: p.time, value: p.value });
        }
        if (samples.size > 0) {
          const rows = [...samples.values()];
          await tx.query(
            `INSERT INTO observability_metric_samples (series_id, time, value)
             SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::float8[])
             ON CONFLICT (series_id, time) DO UPDATE SET value = EXCLUDED.value`,
            [rows.map((r) => r.series), rows.map((r) => new Date(r.time).toISOString()), rows.map((r) => r.value)],
          );
          // Retention keeps a series while it is written; touched at most once a minute.
          await tx.query(
            `UPDATE observability_metric_series SET last_seen_at = now()
              WHERE id = ANY($1::bigint[]) AND last_seen_at < now() - interval '1 minute'`,
            [[...new Set(rows.map((r) => r.series))]],
          );
        }
        return { rejected };
      });
    },

    async points(tenant, q) {
      const res = await sql.query<{ id: string; labels: Record<string, string> | string; b: number; v: number }>(
        `WITH s AS (
           SELECT id, labels FROM observability_metric_series
            WHERE tenant_id = $1 AND name = $2 AND labels @> $3::jsonb
            ORDER BY id LIMIT $7)
         SELECT s.id::text AS id, s.labels, floor(extract(epoch FROM m.time) / $6)::float8 AS b,
                (array_agg(m.value ORDER BY m.time DESC))[1] AS v
           FROM s JOIN observability_metric_samples m ON m.series_id = s.id
          WHERE m.time >= $4::timestamptz AND m.time < $5::timestamptz
          GROUP BY s.id, s.labels, b
          ORDER BY s.id, b`,
        [
          tenant,
          q.metric,
          JSON.stringify(q.matchers),
          q.from.toISOString(),
          q.to.toISOString(),
          q.stepSeconds,
          q.maxSeries + 1,
        ],
      );
      return res.rows.map((r) => ({
        seriesId: r.id,
        labels: typeof r.labels === 'string' ? (JSON.parse(r.labels) as Record<string, string>) : r.labels,
        bucket: Number(r.b),
        value: Number(r.v),
      }));
    },

    async latest(names, since) {
      if (names.length === 0) return [];
      const res = await sql.query<{
        tenant_id: string;
        name: string;
        labels: Record<string, string> | string;
        value: number;
      }>(
        `SELECT DISTINCT ON (s.id) s.tenant_id, s.name, s.labels, m.value
           FROM observability_metric_series s JOIN observability_metric_samples m ON m.series_id = s.id
          WHERE s.name = ANY($1::text[]) AND m.time >= $2::timestamptz
          ORDER BY s.id, m.time DESC`,
        [names, since.toISOString()],
      );
      return res.rows.map((r) => ({
        tenant: r.tenant_id,
        name: r.name,
        labels: typeof r.labels === 'string' ? (JSON.parse(r.labels) as Record<string, string>) : r.labels,
        value: Number(r.value),
      }));
    },

    async seriesCount(tenant) {
      const res = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM observability_metric_series WHERE tenant_id = $1`,
        [tenant],
      );
      return Number(res.rows[0]!.n);
    },

    async prune(before) {
      const samples = await sql.query('DELETE FROM observability_metric_samples WHERE time < $1', [before]);
      await sql.query(
        `DELETE FROM observability_metric_series s WHERE s.last_seen_at < $1
            AND NOT EXISTS (SELECT 1 FROM observability_metric_samples m WHERE m.series_id = s.id)`,
        [before],
      );
      return samples.rowCount;
    },
  };
}
