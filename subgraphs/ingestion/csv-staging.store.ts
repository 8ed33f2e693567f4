// A whole CSV batch staged by PostgreSQL in one transaction (PostgreSQL only: it needs COPY from a
// client stream): the file's records `COPY`'d into a temporary table of text columns (PostgreSQL
// parses the CSV), then mapped, checked and written to staging with lineage by ONE
// `INSERT ... SELECT` (sql-mapping.ts), the manifest's per-column checksums computed by SQL
// aggregates, and the checkpoint moved from 0 to the end, all committed together. Nothing is
// half-written: a crash, a row the SQL cannot answer exactly, or a failed cast rolls the whole
// transaction back, and the caller runs the per-record path (which quarantines with reasons).
import { ConflictError } from '../../platform/errors/domain-errors';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { CopyDeclined, type CsvCopySource } from './csv-copy-source';
import type { Batch } from './pipeline.types';
import type { SqlPlan } from './sql-mapping';
import { hmacPads, scrubSql } from './sql-scrub';

export interface CsvStaged {
  rows: number;
  /** Per staged column: SHA-256 of its values' text in offset order joined by '\n' (column-checksums.ts). */
  checksums: Record<string, string>;
}

export interface CsvStagingStore {
  /** Stages the batch from offset 0; throws CopyDeclined (or the server's error) with nothing written. */
  stage(
    tenantId: string,
    b: Batch,
    dataset: string,
    plan: SqlPlan,
    source: CsvCopySource,
    /** The tenant's PII key (pii-scrubber.ts tenantPiiKey), for hash and tokenize. */
    piiKey: Buffer,
    /** Tests only: runs before the commit (the crash test holds the batch there). */
    beforeCommit?: () => Promise<void>,
  ): Promise<CsvStaged>;
}

export const RAW = 'ingestion_csv_raw';

// A float8's text as JavaScript's Number#toString writes it, for the texts PostgreSQL writes with
// an exponent (below 1e-4 or from 1e15; the shortest round-trip digits are the same in both).
// SQL, not plpgsql: called only for those values, it costs nothing for the others.
export const JS_NUMBER = `CREATE OR REPLACE FUNCTION pg_temp.ingestion_js_number(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN s.n BETWEEN s.k AND 21 THEN s.sign || s.d || repeat('0', s.n - s.k)
    WHEN s.n BETWEEN 1 AND 21 THEN s.sign || left(s.d, s.n) || '.' || substr(s.d, s.n + 1)
    WHEN s.n BETWEEN -5 AND 0 THEN s.sign || '0.' || repeat('0', -s.n) || s.d
    ELSE s.sign || left(s.d, 1) || CASE WHEN s.k > 1 THEN '.' || substr(s.d, 2) ELSE '' END
      || 'e' || CASE WHEN s.n > 0 THEN '+' ELSE '-' END || abs(s.n - 1)::text
  END
  FROM (SELECT CASE WHEN left(t, 1) = '-' THEN '-' ELSE '' END AS sign, m.d, length(m.d) AS k,
               split_part(t, 'e', 2)::int + 1 AS n
          FROM (SELECT replace(ltrim(split_part(t, 'e', 1), '-'), '.', '') AS d) m) s
$$`;

const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The rows to stage: offset and each field's text as the JSON and the checksum take it (a number as
 * JavaScript writes it; a scrubbed value as pii-scrubber.ts writes it), only those the plan takes.
 * `OFFSET 0` keeps each level from being folded into the next (its expressions would then be
 * evaluated once per use). A mask that cannot answer (a non-ASCII value) is NULL: the row is left
 * out, so the count falls short and the batch goes record by record.
 */
export function mappedRows(plan: SqlPlan): string {
  const values = plan.fields.map((f) => `${f.sql} AS ${f.alias}`).join(', ');
  const texts = plan.fields.map((f) =>
    f.kind === 'number' ? `${f.alias}, ${f.alias}::text AS t_${f.alias}` : f.alias,
  );
  const asText = plan.fields.map((f) =>
    f.kind === 'number'
      ? `CASE WHEN ${f.alias} = 0 THEN '0' WHEN strpos(t_${f.alias}, 'e') = 0 THEN t_${f.alias} ELSE pg_temp.ingestion_js_number(t_${f.alias}) END AS ${f.alias}`
      : f.alias,
  );
  const mapped = `SELECT o, ${asText.join(', ')} FROM (
      SELECT o, ${texts.join(', ')} FROM (SELECT o, ${values} FROM ${RAW} OFFSET 0) a WHERE ${plan.ok} OFFSET 0
    ) b`;
  const scrubbed = plan.fields.filter((f) => f.staged && f.scrub);
  if (scrubbed.length === 0) return mapped;
  const out = plan.fields
    .filter((f) => f.staged)
    .map((f) => (f.scrub ? `${scrubSql(f.scrub, f.name, f.alias, PAD_IN, PAD_OUT)} AS ${f.alias}` : f.alias));
  const masked = scrubbed.filter((f) => f.scrub === 'mask').map((f) => `${f.alias} IS NOT NULL`);
  return `SELECT * FROM (SELECT o, ${out.join(', ')} FROM (${mapped} OFFSET 0) c OFFSET 0) d${masked.length > 0 ? ` WHERE ${masked.join(' AND ')}` : ''}`;
}

/** The record's JSON text as JSON.stringify writes it (field names are identifiers: no escaping). */
export function recordJson(plan: SqlPlan, escape: boolean): string {
  const staged = plan.fields.filter((f) => f.staged);
  if (staged.length === 0) return `'{}'`;
  const parts = staged.map((f, i) => {
    const key = quoted(`${i === 0 ? '{' : ','}"${f.name}":`);
    // PostgreSQL's JSON string escaping is JSON.stringify's: \" \\ \b \f \n \r \t, other controls as \u00xx.
    const value =
      f.kind === 'number' && !f.scrub ? f.alias : escape ? `to_json(${f.alias})::text` : `'"' || ${f.alias} || '"'`;
    return `${key} || ${value}`;
  });
  return `(${parts.join(' || ')} || '}')`;
}

/**
 * ONE statement stages the rows and answers the manifest's checksums: the mapped (and scrubbed)
 * rows are computed once into a materialised CTE, the INSERT reads it, and the aggregates read it
 * again in offset order (one sort, in the subquery: a plain scan of a CTE with no join or grouping
 * hands the aggregate its rows in that order), instead of a second statement evaluating the
 * mapping again. Answers `n`, the rows inserted (`taken`, an aggregate, makes it one row even with no staged field), and one checksum column per staged field.
 * $1..$5: batch, tenant, pipeline, dataset, source; $6/$7: the HMAC pads when a field is scrubbed.
 */
export function stagingStatement(plan: SqlPlan, escape: boolean): string {
  const staged = plan.fields.filter((f) => f.staged);
  const sums = staged.map(
    (f) => `encode(sha256(convert_to(string_agg(${f.alias}, E'\\n'), 'UTF8')), 'hex') AS ${f.alias}`,
  );
  return `WITH m AS MATERIALIZED (${mappedRows(plan)}),
    ins AS (INSERT INTO ingestion_staged_records (batch_id, record_offset, tenant_id, pipeline_id, dataset, source, data)
      SELECT $1::uuid, o, $2, $3::uuid, $4, $5, ${recordJson(plan, escape)} FROM m RETURNING 1)
    SELECT (SELECT count(*) FROM ins)::float8 AS n, count(*) AS taken${sums.map((s) => `, ${s}`).join('')}
      FROM (SELECT * FROM m ORDER BY o) s`;
}

const PAD_IN = '$6';
const PAD_OUT = '$7';

export function createCsvStagingStore(sql: SqlExecutor): CsvStagingStore | null {
  if (!sql.copyFrom) return null;
  return {
    async stage(tenantId, b, dataset, plan, source, piiKey, beforeCommit) {
      return sql.transaction(async (q) => {
        // The checkpoint row is held to the end: another runner of this batch waits, then finds it moved.
        const cp = await q.query<{ o: number }>(
          `SELECT committed_offset::float8 AS o FROM ingestion_checkpoints WHERE tenant_id = $1 AND batch_id = $2::uuid FOR UPDATE`,
          [tenantId, b.id],
        );
        if (cp.rows[0]?.o !== 0) throw new ConflictError('another runner has moved this batch on; this one stops');
        await q.exec('SET LOCAL extra_float_digits = 1');
        const columns = source.columns.map((_, i) => `c${i + 1}`).join(', ');
        await q.exec(
          `CREATE TEMP TABLE ${RAW} (o bigint GENERATED ALWAYS AS IDENTITY (MINVALUE 0 START WITH 0), ${source.columns
            .map((_, i) => `c${i + 1} text`)
            .join(', ')}) ON COMMIT DROP`,
        );
        await q.exec(JS_NUMBER);
        const rows = await copyPieces(
          q,
          `COPY ${RAW} (${columns}) FROM STDIN WITH (FORMAT csv, DELIMITER ${quoted(source.delimiter)}, FORCE_NOT_NULL (${columns}))`,
          source.pieces,
        );
        if (rows === 0) throw new CopyDeclined('no records');
        const escape = source.needsEscaping() || plan.literalNeedsEscaping;
        // The pads are bound only when the statement names them ($6/$7: a hash or a tokenize).
        const keyed = plan.fields.some((f) => f.staged && (f.scrub === 'hash' || f.scrub === 'tokenize'));
        const pads = keyed ? hmacPads(piiKey) : null;
        const result = await q.query<Record<string, string | number>>(stagingStatement(plan, escape), [
          b.id,
          tenantId,
          b.pipelineId,
          dataset,
          b.sourceName,
          ...(pads ? [pads.inner, pads.outer] : []),
        ]);
        const sums = result.rows[0]!;
        if (sums.n !== rows) throw new CopyDeclined(`${rows - Number(sums.n)} records need the per-record path`);
        const checksums: Record<string, string> = {};
        const staged = plan.fields.filter((f) => f.staged);
        for (const f of [...staged].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)))
          checksums[f.name] = sums[f.alias] as string;
        await q.query(
          `UPDATE ingestion_checkpoints SET committed_offset = $3, updated_at = now() WHERE tenant_id = $1 AND batch_id = $2::uuid`,
          [tenantId, b.id, rows],
        );
        await q.query(
          `UPDATE ingestion_batches SET rows_read = $3, rows_staged = rows_staged + $3 WHERE tenant_id = $1 AND id = $2::uuid`,
          [tenantId, b.id, rows],
        );
        if (beforeCommit) await beforeCommit();
        return { rows, checksums };
      });
    },
  };
}

/** Each piece one COPY statement on the transaction's connection; the next piece is read while one is sent. */
async function copyPieces(q: SqlQuery, statement: string, pieces: AsyncIterable<string>): Promise<number> {
  const it = pieces[Symbol.asyncIterator]();
  let rows = 0;
  let next = it.next();
  try {
    for (;;) {
      const piece = await next;
      if (piece.done) return rows;
      next = it.next();
      // Marked handled: a failed read is seen at the next await, after this COPY ends.
      next.catch(() => {});
      rows += await q.copyFrom!(statement, piece.value);
    }
  } finally {
    // A COPY that failed leaves the reader mid-file: it closes the file.
    await next.then(
      () => it.return?.(),
      () => undefined,
    );
  }
}
