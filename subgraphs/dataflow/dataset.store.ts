// Staged records (dataflow_records): ingestion datasets and pack outputs, one current record per
// key, in `seq` order for watermarks; and the per-cell checksums and in-SQL comparison the
// checksum-and-split diff asks for. Raw SQL over bound parameters; the tenant id comes first in every function.
import type { SqlQuery } from '../../platform/db/sql';
import type { StagedRecord } from './dataflow.types';

export interface SeqRecord extends StagedRecord {
  seq: string;
}

/** A key range: `from` inclusive, `to` exclusive, null for unbounded. */
export interface KeyRange {
  from: string | null;
  to: string | null;
}

export interface RangeSums {
  count: number;
  /** The sum of each row's 64-bit hash of its key and data, as text (a numeric). */
  sum: string;
}

/** A key on one side only (the other side null) or on both with other data. */
export interface DifferingRow {
  key: string;
  left: Record<string, unknown> | null;
  right: Record<string, unknown> | null;
}

/** The diff's grid (`bounds`, ascending in the database's key order) and every cell's sums. */
export interface CellSums {
  bounds: string[];
  /** Cell i holds the keys k with bounds[i-1] <= k < bounds[i] (no bound below cell 0 or above the last). */
  cells: { left: RangeSums; right: RangeSums }[];
}

// The per-row checksum: PostgreSQL's 64-bit text hash of key and data, computed once per row per
// diff (both sides are in this one database, so the hash needs to agree only with itself).
const ROW_HASH = `hashtextextended(record_key || '|' || data::text, 0)`;

export interface DatasetStore {
  /** Inserts or replaces records by key; a replaced record moves past every watermark. */
  stage(tenantId: string, dataset: string, records: StagedRecord[], origin: string | null): Promise<number>;
  /** Records after `afterSeq` (all when null), in seq order, at most `limit`. */
  read(tenantId: string, dataset: string, afterSeq: string | null, limit: number): Promise<SeqRecord[]>;
  /**
   * Cuts both sides' keys into cells of about `cellRows` rows (at most `maxCells` cells) and
   * returns each side's count and checksum per cell: two statements, whatever the size.
   */
  cellSums(tenantId: string, left: string, right: string, cellRows: number, maxCells: number): Promise<CellSums>;
  /** The keys in `ranges` (all keys when null) missing on a side or whose data differ, in key order. */
  differences(tenantId: string, left: string, right: string, ranges: KeyRange[] | null): Promise<DifferingRow[]>;
}

export function sqlDatasetStore(db: SqlQuery): DatasetStore {
  return {
    async stage(tenantId, dataset, records, origin) {
      if (records.length === 0) return 0;
      const { rowCount } = await db.query(
        `INSERT INTO dataflow_records (tenant_id, dataset, record_key, data, origin)
         SELECT $1, $2, e->>'key', e->'data', $3 FROM jsonb_array_elements($4::jsonb) AS e
         ON CONFLICT (tenant_id, dataset, record_key) DO UPDATE
           SET data = EXCLUDED.data, origin = EXCLUDED.origin, seq = nextval('dataflow_records_seq_seq'), created_at = now()`,
        [tenantId, dataset, origin, JSON.stringify(records)],
      );
      return rowCount;
    },
    async read(tenantId, dataset, afterSeq, limit) {
      const { rows } = await db.query<{ seq: string; key: string; data: Record<string, unknown> }>(
        `SELECT seq::text AS seq, record_key AS key, data FROM dataflow_records
          WHERE tenant_id = $1 AND dataset = $2 AND ($3::bigint IS NULL OR seq > $3::bigint)
          ORDER BY seq LIMIT $4`,
        [tenantId, dataset, afterSeq, limit],
      );
      return rows;
    },
    async cellSums(tenantId, left, right, cellRows, maxCells) {
      // Every step-th key of both sides in key order (a merge of the two index scans): the grid.
      const grid = await db.query<{ k: string }>(
        `SELECT k FROM (
           SELECT k, row_number() OVER (ORDER BY k) AS rn, count(*) OVER () AS total FROM (
             SELECT record_key AS k FROM dataflow_records WHERE tenant_id = $1 AND dataset = $2
             UNION ALL
             SELECT record_key AS k FROM dataflow_records WHERE tenant_id = $1 AND dataset = $3
           ) AS keys
         ) AS ranked
         WHERE rn % GREATEST($4::bigint, CEIL(total::numeric / $5)::bigint) = 0
         ORDER BY k`,
        [tenantId, left, right, cellRows, maxCells],
      );
      // A key present on both sides can be picked twice: a bound once is enough.
      const bounds = grid.rows.map((r) => r.k).filter((k, i, all) => i === 0 || all[i - 1] !== k);
      const { rows } = await db.query<{ dataset: string; cell: number; n: number; s: string }>(
        `SELECT dataset, width_bucket(record_key::text, $4::text[]) AS cell, count(*)::int AS n, sum(${ROW_HASH})::text AS s
           FROM dataflow_records
          WHERE tenant_id = $1 AND dataset IN ($2, $3)
          GROUP BY 1, 2`,
        [tenantId, left, right, bounds],
      );
      const empty = (): RangeSums => ({ count: 0, sum: '0' });
      const cells = Array.from({ length: bounds.length + 1 }, () => ({ left: empty(), right: empty() }));
      for (const r of rows) cells[r.cell]![r.dataset === left ? 'left' : 'right'] = { count: r.n, sum: r.s };
      return { bounds, cells };
    },
    async differences(tenantId, left, right, ranges) {
      const compare = (l: string, r: string) => `
        SELECT coalesce(l.k, r.k) AS key, l.data AS left, r.data AS right
          FROM (SELECT record_key AS k, data FROM dataflow_records WHERE tenant_id = $1 AND dataset = $2 AND ${l}) AS l
          FULL JOIN (SELECT record_key AS k, data FROM dataflow_records WHERE tenant_id = $1 AND dataset = $3 AND ${r}) AS r
            ON l.k = r.k
         WHERE l.k IS NULL OR r.k IS NULL OR l.data <> r.data`;
      if (ranges === null) {
        const { rows } = await db.query<DifferingRow>(`${compare('true', 'true')} ORDER BY 1`, [tenantId, left, right]);
        return rows;
      }
      if (ranges.length === 0) return [];
      // One statement for all ranges, each read by its own index range scan. The bounds are
      // closed for the index ('' is below every key; the top is the largest key), and the
      // exclusive upper bound is applied as a filter.
      const inRange = `record_key >= b.lo AND record_key <= b.top AND (b.hi IS NULL OR record_key < b.hi)`;
      const { rows } = await db.query<DifferingRow>(
        `SELECT d.key, d.left, d.right
           FROM (SELECT coalesce(lo, '') AS lo, hi,
                        coalesce(hi, GREATEST(
                          (SELECT max(record_key) FROM dataflow_records WHERE tenant_id = $1 AND dataset = $2),
                          (SELECT max(record_key) FROM dataflow_records WHERE tenant_id = $1 AND dataset = $3))) AS top
                   FROM unnest($4::text[], $5::text[]) AS u(lo, hi)) AS b
           CROSS JOIN LATERAL (${compare(inRange, inRange)}) AS d
          ORDER BY 1`,
        [tenantId, left, right, ranges.map((r) => r.from), ranges.map((r) => r.to)],
      );
      return rows;
    },
  };
}
