// CSV: a header row names the columns, every following row is a record of strings (compared as
// numbers where they are numeric text, see value-semantics.ts). Values are trimmed, a BOM and
// blank lines are skipped, quotes follow RFC 4180. A row with more or fewer fields than the header
// is refused naming the row: a shifted column would validate the wrong values.
import { CsvError, parse } from 'csv-parse/sync';
import { InputFormatError } from './input-format.error';
import type { InputOptions } from './input.options';

function header(names: string[]): string[] {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new InputFormatError(['header', i], `column ${i + 1} of the header has no name`);
    if (name === '__proto__') throw new InputFormatError(['header', i], 'a column cannot be named __proto__');
    if (seen.has(name))
      throw new InputFormatError(['header', i], `column name ${JSON.stringify(name)} appears twice in the header`);
    seen.add(name);
  });
  return names;
}

export function csvRecords(payload: unknown, options: InputOptions): unknown[] {
  if (typeof payload !== 'string') throw new InputFormatError([], 'a CSV payload is a string');
  let records: Record<string, string>[];
  try {
    records = parse(payload, {
      columns: header,
      bom: true,
      trim: true,
      skip_empty_lines: true,
      // One record past the limit is enough to know the payload is too large.
      to: options.maxRecords + 1,
    }) as Record<string, string>[];
  } catch (err) {
    if (err instanceof InputFormatError) throw err;
    if (err instanceof CsvError) {
      const row = Number((err as unknown as { records?: number }).records ?? 0);
      if (err.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' || err.code === 'CSV_RECORD_INCONSISTENT_COLUMNS') {
        const line = (err as unknown as { lines?: number }).lines;
        throw new InputFormatError([row], `row ${row} (line ${line}) does not have as many fields as the header`);
      }
      throw new InputFormatError([row], `CSV cannot be read at row ${row}: ${err.message}`);
    }
    throw err;
  }
  if (records.length > options.maxRecords)
    throw new InputFormatError([], `the payload holds more than ${options.maxRecords} records`);
  return records;
}
