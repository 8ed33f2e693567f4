// Reads a Parquet file as records with hyparquet, one row group at a time: the footer (schema and
// row groups) is read first, then each row group's column chunks are fetched from the spooled
// file and decoded, so memory holds one row group, never the file. A row group larger than
// INGESTION_PARQUET_MAX_ROW_GROUP_BYTES (uncompressed, as the footer declares it) is refused
// before it is read, and no page may decompress past that bound whatever its header says (the
// decompressors, hyparquet-compressors' SNAPPY, GZIP, BROTLI, ZSTD, LZ4, are wrapped to check the
// length before they allocate). Values become JSON: 64-bit integers numbers when exact (else
// decimal strings), timestamps ISO strings, bytes base64; nested lists and structs stay nested.
import { createHash } from 'node:crypto';
import {
  asyncBufferFromFile,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema,
  type Compressors,
} from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import type { IngestionLimits } from './pipeline.types';
import { SourceFormatError, type ReadResult, type SourceRecord } from './source-format';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** INGESTION_PARQUET_MAX_ROW_GROUP_BYTES: the most uncompressed bytes one row group may hold. */
export const DEFAULT_MAX_ROW_GROUP_BYTES = 256 * 1024 * 1024;

function parquetError(err: unknown): SourceFormatError {
  return err instanceof SourceFormatError ? err : new SourceFormatError(`Parquet: ${(err as Error).message}`);
}

/** The decompressors, each refusing an output larger than `max` before allocating it. */
export function boundedCompressors(max: number): Compressors {
  const bounded: Compressors = {};
  for (const [codec, decompress] of Object.entries(compressors) as [
    keyof Compressors,
    Compressors[keyof Compressors],
  ][]) {
    bounded[codec] = (input, length) => {
      if (!(length >= 0 && length <= max))
        throw new SourceFormatError(`Parquet: a page declares ${length} bytes uncompressed; at most ${max} are read`);
      return decompress!(input, length);
    };
  }
  return bounded;
}

/** A decoded value as JSON can carry it. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonValue(x);
    return out;
  }
  return v;
}

export async function readParquet(file: string, limits: IngestionLimits): Promise<ReadResult> {
  const maxGroupBytes = limits.maxRowGroupBytes ?? DEFAULT_MAX_ROW_GROUP_BYTES;
  let columns: string[];
  let source: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  let metadata: Awaited<ReturnType<typeof parquetMetadataAsync>>;
  try {
    source = await asyncBufferFromFile(file);
    if (source.byteLength < 12) throw new SourceFormatError('Parquet: the file is too short to be Parquet');
    metadata = await parquetMetadataAsync(source);
    const leaves = metadata.schema.filter((e) => !e.num_children).length;
    if (leaves > limits.maxColumns)
      throw new SourceFormatError(`Parquet: the file has ${leaves} columns; at most ${limits.maxColumns} are read`);
    columns = parquetSchema(metadata).children.map((c) => c.element.name);
    metadata.row_groups.forEach((g, i) => {
      if (g.total_byte_size > BigInt(maxGroupBytes))
        throw new SourceFormatError(
          `Parquet: row group ${i} holds ${g.total_byte_size} bytes uncompressed; at most ${maxGroupBytes} are read at once`,
        );
    });
  } catch (err) {
    throw parquetError(err);
  }
  const decompressors = boundedCompressors(maxGroupBytes);
  const records = async function* (): AsyncGenerator<SourceRecord> {
    let offset = 0;
    for (const group of metadata.row_groups) {
      const rows = Number(group.num_rows);
      let objects: Record<string, unknown>[];
      try {
        objects = await parquetReadObjects({
          file: source,
          metadata,
          rowStart: offset,
          rowEnd: offset + rows,
          compressors: decompressors,
        });
      } catch (err) {
        throw parquetError(err);
      }
      if (objects.length !== rows)
        throw new SourceFormatError(`Parquet: a row group declares ${rows} rows but holds ${objects.length}`);
      for (const object of objects) {
        const record = jsonValue(object) as Record<string, unknown>;
        const text = JSON.stringify(record);
        if (text.length > limits.maxRecordBytes)
          throw new SourceFormatError(`a Parquet row is longer than ${limits.maxRecordBytes} bytes`);
        yield { offset: offset++, record, rawSha256: sha(text) };
      }
    }
  };
  return { columns, records: records() };
}
