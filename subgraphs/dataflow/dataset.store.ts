// Staged records (dataflow_records): ingestion datasets and pack outputs, one current record per
// key, in `seq` order for watermarks; and the per-range checksums the checksum-and-split diff
// asks for. Raw SQL over bound parameters; the tenant id comes first in every function.
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
  /** The sum of each row's 60-bit MD5 prefix, as text (a numeric). */
  sum: string;
}

const RANGE = `($4::text IS NULL OR record_key >= $4) AND ($5::text IS NULL OR record_key < $5)`;

export interface DatasetStore {
  /** Inserts or replaces records by key; a replaced record moves past every watermark. */
  stage(tenantId: string, dataset: string, records: StagedRecord[], origin: string | null): Promise<number>;
  /** Records after `afterSeq` (all when null), in seq order, at most `limit`. */
  read(tenantId: string, dataset: string, afterSeq: string | null, limit: number): Promise<SeqRecord[]>;
  /** Count and checksum of each side's rows in the range. */
  checksums(
    tenantId: string,
    left: string,
    right: string,
    range: KeyRange,
  ): Promise<{ left: RangeSums; right: RangeSums }>;
  /** Up to `parts - 1` keys splitting the left side's rows in the range into about equal parts. */
  splitKeys(tenantId: string, left: string, right: string, range: KeyRange, parts: number): Promise<string[]>;
  /** Both sides' rows in the range (a leaf of the diff), ordered by key. */
  rowsIn(
    tenantId: string,
    left: string,
    right: string,
    range: KeyRange,
  ): Promise<{ left: StagedRecord[]; right: StagedRecord[] }>;
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
    async checksums(tenantId, left, right, range) {
      const { rows } = await db.query<{ dataset: string; n: string; s: string | null }>(
        `SELECT dataset, count(*)::text AS n,
                sum(('x' || substr(md5(record_key || '|' || data::text), 1, 15))::bit(60)::bigint)::text AS s
           FROM dataflow_records
          WHERE tenant_id = $1 AND dataset IN ($2, $3) AND ${RANGE}
          GROUP BY dataset`,
        [tenantId, left, right, range.from, range.to],
      );
      const of = (d: string): RangeSums => {
        const row = rows.find((r) => r.dataset === d);
        return { count: row ? Number(row.n) : 0, sum: row?.s ?? '0' };
      };
      return { left: of(left), right: of(right) };
    },
    async splitKeys(tenantId, left, right, range, parts) {
      // Both sides' keys: a range present on one side only must still split.
      const { rows } = await db.query<{ k: string }>(
        `SELECT k FROM (
           SELECT record_key AS k, row_number() OVER (ORDER BY record_key) AS rn, count(*) OVER () AS total
             FROM dataflow_records WHERE tenant_id = $1 AND dataset IN ($2, $3) AND ${RANGE}
         ) AS ranked
         WHERE rn > 1 AND (rn - 1) % GREATEST(1, total / $6) = 0
         ORDER BY k`,
        [tenantId, left, right, range.from, range.to, parts],
      );
      return [...new Set(rows.map((r) => r.k))];
    },
    async rowsIn(tenantId, left, right, range) {
      const { rows } = await db.query<{ dataset: string; key: string; data: Record<string, unknown> }>(
        `SELECT dataset, record_key AS key, data FROM dataflow_records
          WHERE tenant_id = $1 AND dataset IN ($2, $3) AND ${RANGE} ORDER BY record_key`,
        [tenantId, left, right, range.from, range.to],
      );
      return {
        left: rows.filter((r) => r.dataset === left).map(({ key, data }) => ({ key, data })),
        right: rows.filter((r) => r.dataset === right).map(({ key, data }) => ({ key, data })),
      };
    },
  };
}
