// Reads a source's bytes as records, streamed: XLSX (xlsx-reader.ts) and Parquet
// (parquet-reader.ts) from the spooled file, XML (xml-reader.ts), CSV (csv-parse; the delimiter detected from the
// header line when the pipeline names none), NDJSON (split by line here, with a bound on a line's
// length, which readline has not), and JSON (an array, or an object whose `items_field` holds
// one: read whole, so bounded by the upload limit). Each record comes with its offset, its
// position in the source counting from 0: the checkpoint and lineage name records by it.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import sjson from 'secure-json-parse';
import type { IngestionLimits, PipelineDefinition } from './pipeline.types';
import { SourceFormatError, type ReadResult, type SourceRecord } from './source-format';
import { readParquet } from './parquet-reader';
import { readXlsx } from './xlsx-reader';
import { readXml } from './xml-reader';

export { SourceFormatError, type ReadResult, type SourceRecord } from './source-format';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const CANDIDATE_DELIMITERS = [',', ';', '\t', '|'];

/** The delimiter that splits the header line most often (RFC 4180's comma when none does). */
export function detectDelimiter(headerLine: string): string {
  let best = ',';
  let bestCount = 0;
  for (const d of CANDIDATE_DELIMITERS) {
    const count = headerLine.split(d).length - 1;
    if (count > bestCount) [best, bestCount] = [d, count];
  }
  return best;
}

/** UTF-8 unless a byte-order mark says UTF-16LE, or the pipeline names an encoding. */
function encodingOf(head: Buffer, declared?: BufferEncoding): BufferEncoding {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf16le';
  return declared === ('utf-16le' as BufferEncoding) ? 'utf16le' : (declared ?? 'utf8');
}

/** A CSV's first line, its delimiter (given, else detected) and the column names the schema check compares. */
export function csvHeader(
  headText: string,
  format: PipelineDefinition['format'],
): { firstLine: string; delimiter: string; columns: string[] } {
  const firstLine = headText.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = format.delimiter ?? detectDelimiter(firstLine);
  return { firstLine, delimiter, columns: firstLine.split(delimiter).map((c) => c.trim().replace(/^"|"$/g, '')) };
}

export async function readRecords(
  open: () => Readable,
  format: PipelineDefinition['format'],
  limits: IngestionLimits,
  itemsField?: string,
  /** The spooled file itself: XLSX and Parquet are read from it (their indexes are at the end). */
  file?: string,
): Promise<ReadResult> {
  if (format.type === 'xlsx' || format.type === 'parquet') {
    if (!file) throw new SourceFormatError(`a ${format.type} source is read from its spooled file`);
    return format.type === 'xlsx' ? readXlsx(file, format, limits) : readParquet(file, limits);
  }
  const head = await peek(open(), 64 * 1024);
  const encoding = encodingOf(head, format.encoding);
  const text = head.toString(encoding).replace(/^\uFEFF/, '');
  if (format.type === 'csv') return readCsv(open, format, limits, text, encoding);
  if (format.type === 'ndjson') return readNdjson(open, limits, encoding);
  if (format.type === 'xml') return readXml(open, format, limits, encoding);
  return readJson(open, limits, encoding, itemsField);
}

export async function peek(stream: Readable, bytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    parts.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length >= bytes) break;
  }
  stream.destroy();
  return Buffer.concat(parts).subarray(0, bytes);
}

function readCsv(
  open: () => Readable,
  format: PipelineDefinition['format'],
  limits: IngestionLimits,
  headText: string,
  encoding: BufferEncoding,
): ReadResult {
  const { delimiter, columns: headerColumns } = csvHeader(headText, format);
  const header = format.header !== false;
  // csv-parse itself enforces the record length (max_record_size, in characters); the column
  // bound is checked on the header and on each record before a record is built.
  let columns: string[] = [];
  const parser = parseCsv({
    delimiter,
    quote: format.quote ?? '"',
    bom: true,
    encoding,
    relax_column_count: false,
    skip_empty_lines: true,
    max_record_size: limits.maxRecordBytes,
  });
  const RUN = 1000;
  // Records are taken with read() while the parser has them, so a run costs one await.
  const batches = async function* (): AsyncGenerator<SourceRecord[]> {
    const input = open();
    let failure: Error | null = null;
    parser.on('error', (err: Error) => (failure ??= err));
    input.on('error', (err) => parser.destroy(err));
    input.pipe(parser);
    let offset = 0;
    let first = true;
    try {
      for (;;) {
        const run: SourceRecord[] = [];
        let fields: string[] | null;
        while (run.length < RUN && (fields = parser.read() as string[] | null) !== null) {
          if (fields.length > limits.maxColumns) {
            throw new SourceFormatError(`a record has ${fields.length} columns; at most ${limits.maxColumns} are read`);
          }
          if (first && header) {
            columns = fields.map((c) => c.trim());
            first = false;
            continue;
          }
          first = false;
          if (columns.length === 0) columns = fields.map((_, i) => `column_${i + 1}`);
          const record: Record<string, unknown> = {};
          for (let i = 0; i < columns.length; i++) record[columns[i]!] = fields[i];
          run.push(sourceRecord(offset++, record, fields));
        }
        if (failure) throw failure;
        if (run.length > 0) {
          yield run;
          continue;
        }
        if (parser.readableEnded) return;
        await waitForMore(parser);
      }
    } catch (err) {
      throw err instanceof SourceFormatError ? err : new SourceFormatError(`CSV: ${(err as Error).message}`);
    } finally {
      // Left before the end (a schema change, a failure): the file and the parser are closed.
      if (!parser.readableEnded) {
        input.destroy();
        parser.destroy();
      }
    }
  };
  const records = async function* (): AsyncGenerator<SourceRecord> {
    for await (const run of batches()) yield* run;
  };
  // The header is read before the first record is yielded, so columns are known to the caller
  // once it starts iterating; the header line is also read here for the schema check.
  if (header && headerColumns.length > limits.maxColumns) {
    throw new SourceFormatError(
      `the header has ${headerColumns.length} columns; at most ${limits.maxColumns} are read`,
    );
  }
  return { columns: header ? headerColumns : [], records: records(), batches: batches() };
}

/** A CSV record; its raw hash is computed only when asked for (quarantine needs it, staging does not). */
function sourceRecord(offset: number, record: Record<string, unknown>, fields: string[]): SourceRecord {
  let raw: string | undefined;
  return {
    offset,
    record,
    get rawSha256() {
      return (raw ??= sha(fields.join('\u0000')));
    },
  };
}

/** Until the stream has more to read, ends or fails (the listeners of the two that did not happen are removed). */
async function waitForMore(stream: Readable): Promise<void> {
  const ac = new AbortController();
  try {
    await Promise.race([
      once(stream, 'readable', { signal: ac.signal }),
      once(stream, 'end', { signal: ac.signal }),
      once(stream, 'close', { signal: ac.signal }),
    ]);
  } finally {
    ac.abort();
  }
}

/** Lines of a stream, each at most `maxBytes` long: a longer one fails the read instead of filling memory. */
async function* lines(stream: Readable, maxBytes: number, encoding: BufferEncoding): AsyncGenerator<string> {
  let pending = Buffer.alloc(0);
  for await (const chunk of stream) {
    let data = pending.length ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    let nl: number;
    while ((nl = data.indexOf(0x0a)) >= 0) {
      if (nl > maxBytes) throw new SourceFormatError(`a line is longer than ${maxBytes} bytes`);
      yield data.subarray(0, nl).toString(encoding).replace(/\r$/, '');
      data = data.subarray(nl + 1);
    }
    if (data.length > maxBytes) throw new SourceFormatError(`a line is longer than ${maxBytes} bytes`);
    pending = Buffer.from(data);
  }
  if (pending.length) yield pending.toString(encoding);
}

function readNdjson(open: () => Readable, limits: IngestionLimits, encoding: BufferEncoding): ReadResult {
  const records = async function* (): AsyncGenerator<SourceRecord> {
    let offset = 0;
    for await (const line of lines(open(), limits.maxRecordBytes, encoding)) {
      const trimmed = line.replace(/^\uFEFF/, '').trim();
      if (!trimmed) continue;
      let value: unknown;
      try {
        value = sjson.parse(trimmed, undefined, { protoAction: 'remove', constructorAction: 'remove' });
      } catch (err) {
        throw new SourceFormatError(`NDJSON line ${offset + 1}: ${(err as Error).message}`);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new SourceFormatError(`NDJSON line ${offset + 1} is not an object`);
      }
      yield { offset: offset++, record: value as Record<string, unknown>, rawSha256: sha(trimmed) };
    }
  };
  return { columns: [], records: records() };
}

function readJson(
  open: () => Readable,
  limits: IngestionLimits,
  encoding: BufferEncoding,
  itemsField?: string,
): ReadResult {
  const records = async function* (): AsyncGenerator<SourceRecord> {
    const parts: Buffer[] = [];
    let length = 0;
    for await (const chunk of open()) {
      length += (chunk as Buffer).length;
      if (length > limits.maxBytes)
        throw new SourceFormatError(`a JSON document is read whole: at most ${limits.maxBytes} bytes`);
      parts.push(chunk as Buffer);
    }
    let value: unknown;
    try {
      value = sjson.parse(
        Buffer.concat(parts)
          .toString(encoding)
          .replace(/^\uFEFF/, ''),
        undefined,
        {
          protoAction: 'remove',
          constructorAction: 'remove',
        },
      );
    } catch (err) {
      throw new SourceFormatError(`JSON: ${(err as Error).message}`);
    }
    const items =
      itemsField && value && typeof value === 'object' ? (value as Record<string, unknown>)[itemsField] : value;
    if (!Array.isArray(items))
      throw new SourceFormatError(`JSON: expected an array of records${itemsField ? ` in '${itemsField}'` : ''}`);
    let offset = 0;
    for (const item of items) {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        throw new SourceFormatError(`JSON record ${offset} is not an object`);
      }
      yield { offset: offset++, record: item as Record<string, unknown>, rawSha256: sha(JSON.stringify(item)) };
    }
  };
  return { columns: [], records: records() };
}
