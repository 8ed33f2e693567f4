// A plain CSV batch's staged rows as COPY text (`offset\tjson\n`), for batch-table.store.ts: each
// record read from the file's pieces (csv-piece.ts), normalised, checked and scrubbed exactly as the
// record path does it (the same normaliser and scrubber, the same JSON.stringify text), its values
// folded into the manifest's column checksums. This process maps while PostgreSQL writes the rows
// before: the two cores work at once. A record the record path would quarantine declines the whole
// batch (CopyDeclined): the transaction rolls back and the record path runs, with its reasons.
import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises';
import type { ColumnChecksums } from './column-checksums';
import { CopyDeclined, type CsvCopySource } from './csv-copy-source';
import { pieceRecords } from './csv-piece';
import type { Normaliser } from './normaliser';
import type { Scrub } from './pii-scrubber';

/** Records a yield: about 150 KiB of COPY text for a 7-column file. */
const RUN = 1000;

export async function* csvBatchRows(
  csv: CsvCopySource,
  normaliser: Normaliser,
  scrub: Scrub,
  checksums: ColumnChecksums,
): AsyncGenerator<string> {
  const columns = csv.columns;
  let offset = 0;
  let text = '';
  let run = 0;
  for await (const piece of csv.pieces) {
    for (const fields of pieceRecords(piece, csv.delimiter, columns.length)) {
      const record: Record<string, unknown> = {};
      for (let c = 0; c < columns.length; c++) record[columns[c]!] = fields[c];
      const n = normaliser.normaliseNow(record) ?? (await normaliser.normalise(record));
      if (!n.ok) throw new CopyDeclined('a record is quarantined');
      const data = scrub(n.record);
      const json = JSON.stringify(data);
      // COPY's text format: JSON.stringify leaves no raw newline, CR or tab; its backslashes are doubled.
      text += `${offset++}\t${json.includes('\\') ? json.replace(/\\/g, '\\\\') : json}\n`;
      checksums.add(data);
      if (++run === RUN) {
        checksums.fold();
        yield text;
        text = '';
        run = 0;
        // The COPY's socket is served between runs (mapping a run gives the event loop no turn).
        await turnOfTheEventLoop();
      }
    }
  }
  checksums.fold();
  if (text) yield text;
  if (offset === 0) throw new CopyDeclined('no records');
}
