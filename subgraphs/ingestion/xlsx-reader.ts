// Reads an XLSX workbook as records, streamed: the ZIP container through zip-archive.ts (bounded
// entries and inflation, so a zip bomb fails the batch instead of the service), each XML part
// parsed with saxes as it inflates. The sheet read is the first in the workbook, or the one named
// by `format.sheet`; its first row is the header, each later row a record (cells by the column
// letters of their reference, an empty cell left out). Cell values: shared strings, inline
// strings, formula strings and errors as text, numbers as numbers, booleans as booleans (dates
// are Excel serial numbers: styles are not read). The shared strings are held in memory, within
// INGESTION_XLSX_MAX_SHARED_STRINGS_BYTES; the sheet never is. As with XML sources, a DOCTYPE is
// refused and no entity is expanded; a row wider than INGESTION_MAX_COLUMNS or longer than
// INGESTION_MAX_RECORD_BYTES fails the read.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { IngestionLimits, PipelineDefinition } from './pipeline.types';
import { SourceFormatError, type ReadResult, type SourceRecord } from './source-format';
import { DEFAULT_ARCHIVE_LIMITS, ZipArchive } from './zip-archive';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** INGESTION_XLSX_MAX_SHARED_STRINGS_BYTES: the shared strings are kept in memory while the sheet is read. */
export const DEFAULT_MAX_SHARED_STRINGS_BYTES = 64 * 1024 * 1024;

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';

type Cell = string | number | boolean;
type Row = Map<number, Cell>;

/** `x:row` and `row` alike: parts written with a namespace prefix are read by local name. */
const local = (name: string) => name.slice(name.indexOf(':') + 1);

function xlsxError(err: unknown): SourceFormatError {
  return err instanceof SourceFormatError ? err : new SourceFormatError(`XLSX: ${(err as Error).message}`);
}

/** A saxes parser that refuses a DOCTYPE (no DTD read, no entity expanded). */
function parser(): SaxesParser {
  const p = new SaxesParser({ xmlns: false });
  p.on('doctype', () => {
    throw new SourceFormatError('XLSX: a DOCTYPE is refused (no DTD is read and no entity is expanded)');
  });
  return p;
}

/**
 * Feeds a part's chunks to the parser; after each chunk, what the handlers put in `ready` is
 * yielded, so a caller reads a large part as it inflates.
 */
async function* feed<T>(chunks: AsyncIterable<Buffer>, p: SaxesParser, ready: T[]): AsyncGenerator<T> {
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of chunks) {
      p.write(decoder.decode(chunk, { stream: true }));
      yield* ready.splice(0);
    }
    p.write(decoder.decode());
    p.close();
  } catch (err) {
    throw xlsxError(err);
  }
  yield* ready.splice(0);
}

async function drain(chunks: AsyncIterable<Buffer>, p: SaxesParser): Promise<void> {
  for await (const _ of feed(chunks, p, [])) void _;
}

/** The part the sheet lives in: the workbook names its sheets, its relationships where each is. */
async function sheetPart(zip: ZipArchive, wanted: string | undefined): Promise<string> {
  const sheets: { name: string; rel: string }[] = [];
  const wb = parser();
  wb.on('opentag', (tag: SaxesTagPlain) => {
    if (local(tag.name) !== 'sheet' || sheets.length >= 10_000) return;
    const attrs = tag.attributes as Record<string, string>;
    const rel = Object.entries(attrs).find(([k]) => k.includes(':') && local(k) === 'id')?.[1];
    if (attrs.name !== undefined && rel) sheets.push({ name: attrs.name, rel });
  });
  await drain(zip.chunks(WORKBOOK), wb);
  const sheet = wanted === undefined ? sheets[0] : sheets.find((s) => s.name === wanted);
  if (!sheet)
    throw new SourceFormatError(
      wanted === undefined
        ? 'XLSX: the workbook has no sheet'
        : `XLSX: the workbook has no sheet named '${wanted.slice(0, 100)}'`,
    );
  let target: string | undefined;
  const rels = parser();
  rels.on('opentag', (tag: SaxesTagPlain) => {
    const attrs = tag.attributes as Record<string, string>;
    if (local(tag.name) === 'Relationship' && attrs.Id === sheet.rel) target = attrs.Target;
  });
  await drain(zip.chunks(WORKBOOK_RELS), rels);
  if (!target) throw new SourceFormatError(`XLSX: the sheet '${sheet.name.slice(0, 100)}' has no part`);
  // The target is relative to xl/ (or absolute within the package); resolved as text, to name an
  // entry of the archive, and only if it stays inside the package.
  const name = target.startsWith('/') ? target.slice(1) : path.posix.normalize(`xl/${target}`);
  if (name.startsWith('../') || !zip.has(name))
    throw new SourceFormatError(`XLSX: the sheet '${sheet.name.slice(0, 100)}' names a part that is not in the file`);
  return name;
}

/** The shared string table: each `si`'s text runs joined (phonetic runs left out). */
async function sharedStrings(zip: ZipArchive, maxBytes: number): Promise<string[]> {
  const strings: string[] = [];
  if (!zip.has(SHARED_STRINGS)) return strings;
  const p = parser();
  let item: string | null = null;
  let inText = false;
  let phonetic = 0;
  let size = 0;
  const grow = (t: string) => {
    size += t.length;
    if (size > maxBytes) throw new SourceFormatError(`XLSX: the shared strings are longer than ${maxBytes} characters`);
    item += t;
  };
  p.on('opentag', (tag: SaxesTagPlain) => {
    const n = local(tag.name);
    if (n === 'si') item = '';
    else if (n === 'rPh') phonetic++;
    else if (n === 't' && item !== null && phonetic === 0) inText = true;
  });
  p.on('text', (t) => inText && grow(t));
  p.on('cdata', (t) => inText && grow(t));
  p.on('closetag', (tag: SaxesTagPlain) => {
    const n = local(tag.name);
    if (n === 't') inText = false;
    else if (n === 'rPh') phonetic--;
    else if (n === 'si' && item !== null) {
      strings.push(item);
      item = null;
    }
  });
  await drain(zip.chunks(SHARED_STRINGS), p);
  return strings;
}

/** The 0-based column of a cell reference (`A1` -> 0, `AB12` -> 27); null when it is not a reference. */
function columnOf(ref: string | undefined): number | null {
  const letters = /^([A-Z]{1,3})[0-9]*$/.exec(ref ?? '')?.[1];
  if (!letters) return null;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** The sheet's non-empty rows, each a map of 0-based column to value, in document order. */
function sheetRows(chunks: AsyncIterable<Buffer>, shared: string[], limits: IngestionLimits): AsyncGenerator<Row> {
  const p = parser();
  const ready: Row[] = [];
  let row: Row | null = null;
  let size = 0;
  let next = 0; // the column a cell without a reference takes
  let cell: { column: number; type: string } | null = null;
  let text: string | null = null; // the text of the cell's <v>, or of its inline <is><t>
  let collecting = false;
  let phonetic = 0;
  // A row's length counts its values as read (a shared string's text, not its index); the text
  // of one cell is bounded while it is read too, so no cell grows past the bound first.
  const tooLong = () => new SourceFormatError(`an XLSX row is longer than ${limits.maxRecordBytes} bytes`);
  const grow = (t: string) => {
    if (size + (text?.length ?? 0) + t.length > limits.maxRecordBytes) throw tooLong();
    text = (text ?? '') + t;
  };
  p.on('opentag', (tag: SaxesTagPlain) => {
    const n = local(tag.name);
    if (n === 'row') {
      row = new Map();
      size = 0;
      next = 0;
    } else if (n === 'c' && row) {
      const attrs = tag.attributes as Record<string, string>;
      const column = attrs.r === undefined ? next : columnOf(attrs.r);
      if (column === null) throw new SourceFormatError(`XLSX: a cell reference is malformed`);
      if (column >= limits.maxColumns)
        throw new SourceFormatError(
          `an XLSX row has a cell in column ${column + 1}; at most ${limits.maxColumns} are read`,
        );
      next = column + 1;
      cell = { column, type: attrs.t ?? 'n' };
      text = null;
    } else if (n === 'rPh') phonetic++;
    else if (cell && phonetic === 0 && (n === 'v' || (n === 't' && cell.type === 'inlineStr'))) {
      collecting = true;
      text ??= '';
    }
  });
  p.on('text', (t) => collecting && grow(t));
  p.on('cdata', (t) => collecting && grow(t));
  p.on('closetag', (tag: SaxesTagPlain) => {
    const n = local(tag.name);
    if (n === 'v' || n === 't') collecting = false;
    else if (n === 'rPh') phonetic--;
    else if (n === 'c' && cell && row) {
      if (text !== null) {
        const v = value(cell.type, text, shared);
        size += typeof v === 'string' ? v.length : text.length;
        if (size > limits.maxRecordBytes) throw tooLong();
        row.set(cell.column, v);
      }
      cell = null;
    } else if (n === 'row' && row) {
      if (row.size > 0) ready.push(row);
      row = null;
    }
  });
  return feed(chunks, p, ready);
}

function value(type: string, text: string, shared: string[]): Cell {
  switch (type) {
    case 's': {
      const i = Number(text);
      if (!Number.isInteger(i) || i < 0 || i >= shared.length)
        throw new SourceFormatError(`XLSX: a cell names shared string ${text.slice(0, 20)}, which is not in the file`);
      return shared[i]!;
    }
    case 'b':
      return text.trim() === '1';
    case 'n': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : text;
    }
    default: // inlineStr, str (a formula's text), e (an error such as #DIV/0!), d (an ISO date)
      return text;
  }
}

export async function readXlsx(
  file: string,
  format: PipelineDefinition['format'],
  limits: IngestionLimits,
): Promise<ReadResult> {
  const zip = await ZipArchive.open(file, limits.archive ?? DEFAULT_ARCHIVE_LIMITS, 'XLSX');
  let rows: AsyncGenerator<Row>;
  let header: string[];
  try {
    if (!zip.has(WORKBOOK) || !zip.has(WORKBOOK_RELS))
      throw new SourceFormatError('XLSX: not a workbook (xl/workbook.xml or its relationships are missing)');
    const part = await sheetPart(zip, format.sheet);
    const shared = await sharedStrings(zip, limits.maxSharedStringsBytes ?? DEFAULT_MAX_SHARED_STRINGS_BYTES);
    rows = sheetRows(zip.chunks(part), shared, limits);
    // The header is read now, so the source's columns are known before the first record.
    const first = await rows.next();
    const cells = first.done ? new Map<number, Cell>() : first.value;
    const width = cells.size ? Math.max(...cells.keys()) + 1 : 0;
    header = Array.from({ length: width }, (_, i) => {
      const name = cells.get(i);
      return name === undefined || String(name).trim() === '' ? `column_${i + 1}` : String(name).trim();
    });
  } catch (err) {
    zip.close();
    throw xlsxError(err);
  }
  const records = async function* (): AsyncGenerator<SourceRecord> {
    let offset = 0;
    try {
      for (;;) {
        const next = await rows.next();
        if (next.done) return;
        const record: Record<string, unknown> = {};
        for (const [column, v] of next.value) record[header[column] ?? `column_${column + 1}`] = v;
        yield { offset: offset++, record, rawSha256: sha(JSON.stringify([...next.value])) };
      }
    } finally {
      await rows.return(undefined);
      zip.close();
    }
  };
  return { columns: header, records: records() };
}
