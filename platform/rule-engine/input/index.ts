// Payloads to records, the unit the rule engine validates. One parser per format; each refuses
// what it cannot read faithfully with an InputFormatError naming where.
import { csvRecords } from './csv-records';
import { DEFAULT_INPUT_OPTIONS, type InputFormat, type InputOptions } from './input.options';
import { InputFormatError } from './input-format.error';
import { jsonRecords } from './json-records';
import { xmlRecords } from './xml-records';

export { InputFormatError } from './input-format.error';
export { DEFAULT_INPUT_OPTIONS, type InputFormat, type InputOptions } from './input.options';

const PARSERS: Record<InputFormat, (payload: unknown, options: InputOptions) => unknown[]> = {
  json: jsonRecords,
  csv: csvRecords,
  xml: xmlRecords,
};

export function parseRecords(payload: unknown, format: InputFormat, options?: Partial<InputOptions>): unknown[] {
  const parse = Object.hasOwn(PARSERS, format) ? PARSERS[format] : undefined;
  if (!parse) throw new InputFormatError([], `unknown input format ${JSON.stringify(format)} (json, csv or xml)`);
  return parse(payload, { ...DEFAULT_INPUT_OPTIONS, ...options });
}
