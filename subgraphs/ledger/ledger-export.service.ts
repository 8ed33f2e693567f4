// CSV export (spec 03: header `id,tenant_id,event_type,created_at,user_id,correlation_id,
// description,chain_hash`). Rows stream page by page (constant memory, backpressure from the
// socket), RFC 4180 quoting and CRLF line ends come from csv-stringify, and text cells that a
// spreadsheet would run as a formula are neutralised with a leading apostrophe (OWASP's advice).
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExportRow, LedgerStore } from './ledger.store';
import { withDbRetry } from '../../platform/db/db-retry';

export const EXPORT_COLUMNS = [
  'id',
  'tenant_id',
  'event_type',
  'created_at',
  'user_id',
  'correlation_id',
  'description',
  'chain_hash',
] as const;
export const EXPORT_PAGE_SIZE = 1000;

// Spreadsheets skip leading white space (NBSP and other Unicode spaces included) before they
// look for a formula, and take the full-width forms of = + - @ as the ASCII ones.
const FORMULA_START =
  /^[\s\u00a0\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;

/** A cell a spreadsheet would evaluate (`=`, `+`, `-`, `@`, tab, CR, maybe after spaces) gets a leading `'`. */
export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function record(r: ExportRow): (string | null)[] {
  return [r.id, r.tenant_id, r.event_type, r.created_at_text, r.user_id, r.correlation_id, r.description, r.chain_hash];
}

/**
 * The export as a byte stream. The first page is read before returning, so a database that is
 * down becomes a 503 rather than a truncated 200.
 */
export async function exportCsv(
  store: LedgerStore,
  tenantId: string,
  eventType: string | undefined,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<Readable> {
  const first = await withDbRetry(() => store.exportPage(tenantId, eventType, 0, pageSize));
  async function* pages(): AsyncGenerator<(string | null)[]> {
    let rows = first;
    for (;;) {
      for (const r of rows) yield record(r);
      if (rows.length < pageSize) return;
      const after = Number(rows[rows.length - 1]!.seq);
      rows = await withDbRetry(() => store.exportPage(tenantId, eventType, after, pageSize));
    }
  }
  const csv = stringify({
    header: true,
    columns: [...EXPORT_COLUMNS],
    record_delimiter: 'windows',
    cast: { string: (v: string) => neutraliseCell(v) },
  });
  // pipeline, not pipe: a failing page read destroys the CSV stream (the client sees an aborted
  // response, never a silently short file).
  pipeline(Readable.from(pages()), csv, () => {});
  return csv;
}
