// What every format reader answers: records with their offset and raw hash, the source's column
// names, and the error a source that does not read as its format fails its batch with. (Its own
// file, so the format readers and record-reader.ts import it without importing each other.)
import { InputError } from '../../platform/errors/domain-errors';

export interface SourceRecord {
  offset: number;
  record: Record<string, unknown>;
  /** SHA-256 of the record as read (quarantine names a record by it, never by its values). */
  rawSha256: string;
}

/** A source that could not be read as its format says: the batch fails with this reason. */
export class SourceFormatError extends InputError {
  constructor(reason: string) {
    super([{ loc: ['source'], msg: reason, type: 'value_error.source_format' }]);
  }
}

/** The source's column names: a CSV header, or the keys of the first JSON record. */
export interface ReadResult {
  columns: string[];
  records: AsyncIterable<SourceRecord>;
  /**
   * The same records in runs of those already parsed (CSV): one await a run instead of one a
   * record, which the batch path takes when a reader offers it. Iterate one of the two, once.
   */
  batches?: AsyncIterable<SourceRecord[]>;
}
