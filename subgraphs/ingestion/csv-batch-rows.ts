// A plain CSV batch's staged rows as COPY text (`offset\tjson\n`, in UTF-8 buffers), for
// batch-table.store.ts: each record read from the file's pieces, normalised, checked and scrubbed
// exactly as the record path does it, its values folded into the manifest's column checksums. This
// process maps while PostgreSQL writes the rows before: the two cores work at once. An unscrubbed
// batch whose mapping is in the plain subset goes through a function generated for it
// (row-writer.ts: no record object, no JSON.stringify); a record that function declines, and every
// record of other batches, takes the general steps (the record path's normaliser and scrubber,
// csv-piece.ts's reading). A record the record path would quarantine declines the whole batch
// (CopyDeclined): the transaction rolls back and the record path runs, with its reasons.
import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises';
import type { ColumnChecksums } from './column-checksums';
import { CopyDeclined, type CsvCopySource } from './csv-copy-source';
import { pieceRecords } from './csv-piece';
import type { Normaliser } from './normaliser';
import { scrubsNothing, type Scrub } from './pii-scrubber';
import { compileRowWriter, UNCLEAN, type RowState } from './row-writer';

/** Records a yield: about 150 KiB of COPY text for a 7-column file. */
const RUN = 1000;
/**
 * Records whose COPY text is written into the yield's buffer at once. A run's text held as one
 * string of 1,000 concatenated lines, then flattened and encoded by the COPY stream, cost more
 * than mapping the rows (issue 32: about 1 µs a row, the flattening of a deep string in the large
 * object space); a few dozen lines' text encoded at once costs a fifth of that.
 */
const SUB_RUN = 64;
/** A yield's buffer (a new one each yield: the COPY stream holds it until the socket takes it). */
const CHUNK_BYTES = 256 * 1024;

export async function* csvBatchRows(
  csv: CsvCopySource,
  normaliser: Normaliser,
  scrub: Scrub,
  checksums: ColumnChecksums,
): AsyncGenerator<Buffer> {
  const columns = csv.columns;
  const writer =
    scrubsNothing(scrub) && normaliser.plainMapping
      ? compileRowWriter(normaliser.plainMapping, normaliser.valid, columns, csv.delimiter, (name) =>
          checksums.lane(name),
        )
      : null;
  const st: RowState = { pos: 0, offset: 0, text: '', count: 0, pending: null };
  /** The general steps for one record (its offset is st.offset). */
  const general = async (fields: string[]) => {
    const record: Record<string, unknown> = {};
    for (let c = 0; c < columns.length; c++) record[columns[c]!] = fields[c];
    const n = normaliser.normaliseNow(record) ?? (await normaliser.normalise(record));
    if (!n.ok) throw new CopyDeclined('a record is quarantined');
    const data = scrub(n.record);
    const json = JSON.stringify(data);
    // COPY's text format: JSON.stringify leaves no raw newline, CR or tab; its backslashes are doubled.
    st.text += `${st.offset++}\t${json.includes('\\') ? json.replace(/\\/g, '\\\\') : json}\n`;
    st.count++;
    checksums.add(data);
  };
  let out = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  /** Records in `out` (and in st.text, not yet written into it). */
  let held = 0;
  /** st.text written into `out`; a full buffer is yielded first (`full`), or grown for a long record. */
  const write = (): Buffer | null => {
    const text = st.text;
    if (text === '') return null;
    held += st.count;
    st.text = '';
    st.count = 0;
    // UTF-8 takes at most 3 bytes a UTF-16 unit: then the text fits whole.
    let full: Buffer | null = null;
    if (used + text.length * 3 > out.length) {
      if (used > 0) full = out.subarray(0, used);
      out = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, text.length * 3));
      used = 0;
    }
    used += out.write(text, used, 'utf8');
    return full;
  };
  const take = (): Buffer => {
    checksums.fold();
    const chunk = out.subarray(0, used);
    out = Buffer.allocUnsafe(CHUNK_BYTES);
    used = 0;
    held = 0;
    return chunk;
  };
  for await (const piece of csv.pieces) {
    if (writer && !piece.includes('"') && !piece.includes('\r')) {
      const clean = !UNCLEAN.test(piece);
      st.pos = 0;
      while (st.pos < piece.length) {
        writer.rows(st, piece, clean, SUB_RUN - st.count);
        if (st.pending) {
          const fields = st.pending;
          st.pending = null;
          await general(fields);
        }
        if (st.count < SUB_RUN) continue;
        const full = write();
        if (full) yield full;
        if (held >= RUN) {
          yield take();
          // The COPY's socket is served between runs (mapping a run gives the event loop no turn).
          await turnOfTheEventLoop();
        }
      }
      continue;
    }
    for (const fields of pieceRecords(piece, csv.delimiter, columns.length)) {
      const line = writer ? writer.line(st.offset, false, fields) : null;
      if (line === null) await general(fields);
      else {
        st.text += line;
        st.offset++;
        st.count++;
      }
      if (st.count < SUB_RUN) continue;
      const full = write();
      if (full) yield full;
      if (held >= RUN) {
        yield take();
        await turnOfTheEventLoop();
      }
    }
  }
  const full = write();
  if (full) yield full;
  if (used > 0) yield take();
  checksums.fold();
  if (st.offset === 0) throw new CopyDeclined('no records');
}
