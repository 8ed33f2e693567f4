// JSON: an object is one record; an array of objects is one record each.
import { InputFormatError } from './input-format.error';
import type { InputOptions } from './input.options';

const isRecord = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

export function jsonRecords(payload: unknown, options: InputOptions): unknown[] {
  if (isRecord(payload)) return [payload];
  if (!Array.isArray(payload)) throw new InputFormatError([], 'a JSON payload is an object or an array of objects');
  if (payload.length > options.maxRecords)
    throw new InputFormatError(
      [],
      `the payload holds ${payload.length} records; at most ${options.maxRecords} are validated in one run`,
    );
  payload.forEach((item, i) => {
    if (!isRecord(item)) throw new InputFormatError([i], `record ${i} is not an object`);
  });
  return payload;
}
