// A spooled CSV file in pieces of whole records, for the whole-batch path (csv-piece.ts reads the
// records, csv-batch-rows.ts maps them). It reads the header from the first line and scans the
// bytes once, to cut pieces at record ends (a newline outside quotes) and to decline any file on
// which that simple reading and csv-parse (the per-record path) could answer differently, so that
// taking the file this way changes nothing but the speed:
// a quote that does not open or close a field (csv-parse refuses it, COPY takes it), a
// carriage return alone (COPY takes it as a line end in some files only), an empty line (csv-parse
// skips it), a line beginning with a backslash (COPY's `\.` ends the data), a record longer than
// INGESTION_MAX_RECORD_BYTES. A declined file goes the per-record way, which gives its own answer.
import type { Readable } from 'node:stream';
import { csvHeader } from './record-reader';
import type { IngestionLimits, PipelineDefinition } from './pipeline.types';

/** The file (or a record of it) cannot be staged whole exactly; the per-record path takes it. */
export class CopyDeclined extends Error {}

const NL = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Bytes held before they are cut into pieces (memory holds this and one read). */
const PIECE_BYTES = 8 * 1024 * 1024;
/**
 * Most bytes a piece of a file without quotes, cut at line ends (a longer record is one piece):
 * its text then stays under V8's large-object size (128 KiB), allocated young and let go young.
 * Decoding 8 MiB pieces into large-object strings cost about 0.4 µs a row, a tenth of that at
 * this size (issue 32).
 */
const PLAIN_PIECE_BYTES = 64 * 1024;

export interface CsvCopySource {
  columns: string[];
  delimiter: string;
  /** Whole records (no header), decoded as UTF-8; throws CopyDeclined while iterating when the file is not plain. */
  pieces: AsyncIterable<string>;
}

/** The header and the delimiter of a CSV file that may be staged whole, or null when it may not (decided from the first line). */
export function csvCopySource(
  open: () => Readable,
  head: Buffer,
  format: PipelineDefinition['format'],
  limits: IngestionLimits,
): CsvCopySource | null {
  if (format.type !== 'csv' || format.header === false) return null;
  if ((format.quote ?? '"') !== '"') return null;
  if (format.encoding && !['utf8', 'utf-8'].includes(format.encoding.toLowerCase())) return null;
  if (head[0] === 0xff && head[1] === 0xfe) return null;
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const { delimiter, columns, firstLine } = csvHeader(text, format);
  const lineEnd = text.indexOf('\n');
  // The header must be a whole line ending in LF (or CRLF), with no quotes: then its naive split is csv-parse's.
  if (lineEnd < 0 || firstLine.includes('"') || firstLine.includes('\r')) return null;
  if (delimiter.length !== 1 || delimiter.charCodeAt(0) > 0x7f || '"\r\n\\'.includes(delimiter)) return null;
  if (columns.length < 2 || columns.length > limits.maxColumns || new Set(columns).size !== columns.length) return null;
  const delim = delimiter.charCodeAt(0);
  const pieces = async function* (): AsyncGenerator<string> {
    const input = open();
    try {
      // The reads since the last piece, joined once a piece is cut: joining at every read copied
      // each 8 MiB piece about 16 times over (256 KiB reads).
      let held: Buffer[] = [];
      let heldBytes = 0;
      let header: Buffer = Buffer.alloc(0);
      let skipHeader = true;
      // Scanner state, carried across reads.
      let inQuote = false;
      let fieldStart = true;
      let closed = false; // a quote just closed a field: only a delimiter, a line end or a second quote may follow
      let recordStart = true;
      let cr = false; // a CR outside quotes: only LF may follow
      let recordBytes = 0;
      let boundary = 0; // end of the last whole record in the held bytes
      let plainHeld = true; // the held bytes have no quote (no line end inside a field)
      /** Scans `buf`, which starts `base` bytes into the held bytes. */
      const scan = (buf: Buffer, base: number) => {
        for (let i = 0; i < buf.length; i++) {
          const b = buf[i]!;
          recordBytes++;
          if (cr) {
            if (b !== NL) throw new CopyDeclined('a carriage return without a line feed');
            cr = false;
          }
          if (closed) {
            closed = false;
            if (b === QUOTE) {
              // "" inside a quoted field: one quote in the value.
              inQuote = true;
              continue;
            }
            if (b !== delim && b !== NL && b !== CR) throw new CopyDeclined('text after a closing quote');
          }
          if (inQuote) {
            if (b === QUOTE) {
              closed = true;
              inQuote = false;
            }
            continue;
          }
          if (b === NL) {
            if (recordStart) throw new CopyDeclined('an empty line');
            if (recordBytes > limits.maxRecordBytes) throw new CopyDeclined('a record over the size limit');
            recordStart = fieldStart = true;
            recordBytes = 0;
            boundary = base + i + 1;
            continue;
          }
          if (b === CR) {
            cr = true;
            continue;
          }
          if (recordStart && b === BACKSLASH) throw new CopyDeclined('a line beginning with a backslash');
          recordStart = false;
          if (b === QUOTE) {
            if (!fieldStart) throw new CopyDeclined('a quote inside an unquoted field');
            inQuote = true;
            fieldStart = false;
            continue;
          }
          fieldStart = b === delim;
        }
      };
      /**
       * The same scan for a read with no quote and no CR, outside a quoted field (the common case):
       * the line ends found by Buffer.indexOf (native) instead of byte by byte.
       */
      const scanPlain = (buf: Buffer, base: number) => {
        let i = 0;
        for (let nl = buf.indexOf(NL, i); nl >= 0; nl = buf.indexOf(NL, i)) {
          if (recordStart) {
            if (nl === i) throw new CopyDeclined('an empty line');
            if (buf[i] === BACKSLASH) throw new CopyDeclined('a line beginning with a backslash');
          }
          recordBytes += nl - i + 1;
          if (recordBytes > limits.maxRecordBytes) throw new CopyDeclined('a record over the size limit');
          recordStart = fieldStart = true;
          recordBytes = 0;
          boundary = base + nl + 1;
          i = nl + 1;
        }
        if (i < buf.length) {
          if (recordStart && buf[i] === BACKSLASH) throw new CopyDeclined('a line beginning with a backslash');
          recordBytes += buf.length - i;
          recordStart = false;
          fieldStart = buf[buf.length - 1] === delim;
        }
      };
      for await (const read of input) {
        let chunk = read as Buffer;
        if (skipHeader) {
          header = header.length === 0 ? chunk : Buffer.concat([header, chunk]);
          const nl = header.indexOf(NL);
          if (nl < 0) continue;
          chunk = header.subarray(nl + 1);
          skipHeader = false;
        }
        if (!inQuote && !closed && !cr && chunk.indexOf(QUOTE) < 0 && chunk.indexOf(CR) < 0)
          scanPlain(chunk, heldBytes);
        else {
          scan(chunk, heldBytes);
          plainHeld = false;
        }
        held.push(chunk);
        heldBytes += chunk.length;
        if (boundary >= PIECE_BYTES || (boundary > 0 && plainHeld)) {
          const joined = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
          if (plainHeld) {
            // Every line end is a record end: pieces cut at line ends (UTF-8 never has 0x0a inside a character).
            for (let start = 0; start < boundary;) {
              let end = boundary;
              if (boundary - start > PLAIN_PIECE_BYTES) {
                const nl = joined.lastIndexOf(NL, start + PLAIN_PIECE_BYTES - 1);
                end = (nl >= start ? nl : joined.indexOf(NL, start + PLAIN_PIECE_BYTES)) + 1;
              }
              yield joined.toString('utf8', start, end);
              start = end;
            }
          } else yield joined.subarray(0, boundary).toString('utf8');
          const rest = joined.subarray(boundary);
          held = rest.length > 0 ? [rest] : [];
          heldBytes = rest.length;
          boundary = 0;
          plainHeld = rest.indexOf(QUOTE) < 0;
        } else if (heldBytes > PIECE_BYTES + limits.maxRecordBytes) {
          throw new CopyDeclined('a record over the size limit');
        }
      }
      if (inQuote || cr) throw new CopyDeclined('the file ends inside a quoted field');
      if (!recordStart && recordBytes > limits.maxRecordBytes) throw new CopyDeclined('a record over the size limit');
      if (heldBytes > 0) {
        const last = Buffer.concat(held, heldBytes).toString('utf8');
        yield last.endsWith('\n') ? last : `${last}\n`;
      }
    } finally {
      input.destroy();
    }
  };
  return { columns, delimiter, pieces: pieces() };
}
