// Parquet sources, written in the test with hyparquet-writer: every row of every row group in
// order, values as JSON (64-bit integers, timestamps, booleans, nulls), SNAPPY and uncompressed;
// read one row group at a time (a row group over the bound is refused before it is read);
// a page that claims more than the bound is refused before it is allocated; too many columns, a
// truncated file, a corrupt one and a file that is not Parquet each fail with a clear reason.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { boundedCompressors } from '../../../subgraphs/ingestion/parquet-reader';
import { readRecords, SourceFormatError } from '../../../subgraphs/ingestion/record-reader';
import type { IngestionLimits } from '../../../subgraphs/ingestion/pipeline.types';
import { parquet } from '../../e2e/ingestion/formats.support';

const limits: IngestionLimits = { maxBytes: 1 << 30, maxRecordBytes: 4096, maxColumns: 10 };
let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parquet-reader-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(content: Buffer): string {
  const file = path.join(dir, `source-${n++}.parquet`);
  fs.writeFileSync(file, content);
  return file;
}

async function read(content: Buffer, lim = limits) {
  const file = write(content);
  const result = await readRecords(() => fs.createReadStream(file), { type: 'parquet' }, lim, undefined, file);
  const records = [];
  for await (const r of result.records) records.push(r);
  return { columns: result.columns, records };
}

const ids = Array.from({ length: 25 }, (_, i) => i + 1);
const customers = (codec?: 'UNCOMPRESSED' | 'SNAPPY') =>
  parquet(
    [
      { name: 'id', data: ids, type: 'INT32' },
      { name: 'name', data: ids.map((i) => (i === 3 ? null : `customer ${i}`)), type: 'STRING' },
      { name: 'balance', data: ids.map((i) => i * 1.5), type: 'DOUBLE' },
      { name: 'active', data: ids.map((i) => i % 2 === 0), type: 'BOOLEAN' },
      { name: 'big', data: ids.map((i) => (i === 1 ? 2n ** 60n : BigInt(i))), type: 'INT64' },
      { name: 'seen', data: ids.map((i) => new Date(Date.UTC(2026, 0, i))), type: 'TIMESTAMP' },
    ],
    { rowGroupSize: 10, codec },
  );

it('reads every row of every row group in order, with values as JSON', async () => {
  for (const codec of ['SNAPPY', 'UNCOMPRESSED'] as const) {
    const { columns, records } = await read(customers(codec));
    expect(columns).toEqual(['id', 'name', 'balance', 'active', 'big', 'seen']);
    expect(records.map((r) => r.offset)).toEqual(ids.map((i) => i - 1));
    expect(records[0]!.record).toEqual({
      id: 1,
      name: 'customer 1',
      balance: 1.5,
      active: false,
      big: '1152921504606846976',
      seen: '2026-01-01T00:00:00.000Z',
    });
    expect(records[2]!.record.name).toBeNull();
    expect(records[24]!.record).toMatchObject({ id: 25, big: 25, active: false, seen: '2026-01-25T00:00:00.000Z' });
    expect(new Set(records.map((r) => r.rawSha256)).size).toBe(25);
  }
});

it('reads one row group at a time, and refuses a row group larger than the bound before reading it', async () => {
  // Three row groups (10, 10, 5 rows); the second one's pages are scribbled over. The first
  // group's records come out before the read fails, so groups are read one by one.
  const good = customers('UNCOMPRESSED');
  const metadata = parquetMetadata(new Uint8Array(good));
  expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([10, 10, 5]);
  const second = metadata.row_groups[1]!.columns[0]!.meta_data!;
  const broken = Buffer.from(good);
  broken.fill(0xff, Number(second.data_page_offset), Number(second.data_page_offset) + 8);
  const file = write(broken);
  const result = await readRecords(() => fs.createReadStream(file), { type: 'parquet' }, limits, undefined, file);
  const seen: number[] = [];
  const err = await (async () => {
    for await (const r of result.records) seen.push(r.offset);
  })().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SourceFormatError);
  expect(seen).toEqual(ids.slice(0, 10).map((i) => i - 1));

  await expect(read(good, { ...limits, maxRowGroupBytes: 100 })).rejects.toThrow(
    /row group 0 holds \d+ bytes uncompressed; at most 100 are read at once/,
  );
  // A page whose header claims more than the bound is refused before anything is allocated.
  const snappy = boundedCompressors(1000).SNAPPY!;
  expect(() => snappy(new Uint8Array(10), 2 ** 31)).toThrow(/declares 2147483648 bytes uncompressed; at most 1000/);
});

it('refuses too many columns and a row over the record limit', async () => {
  const wide = parquet(Array.from({ length: 12 }, (_, i) => ({ name: `c${i}`, data: [1], type: 'INT32' as const })));
  await expect(read(wide)).rejects.toThrow(/the file has 12 columns; at most 10 are read/);
  const long = parquet([{ name: 'text', data: ['x'.repeat(5000)], type: 'STRING' }]);
  await expect(read(long)).rejects.toThrow(/a Parquet row is longer than 4096 bytes/);
});

it('fails a file that is not Parquet, a truncated one and a corrupt one with a clear reason', async () => {
  await expect(read(Buffer.from('id,name\n1,Ada\n'))).rejects.toThrow(/^source: Parquet: /);
  await expect(read(Buffer.from('PAR1'))).rejects.toThrow(/too short to be Parquet/);
  const good = customers('SNAPPY');
  await expect(read(good.subarray(0, good.length - 20))).rejects.toThrow(SourceFormatError);
  // Scribble over the column chunks (the data between the leading magic and the footer).
  const corrupt = Buffer.from(good);
  for (let i = 8; i < corrupt.length / 2; i++) corrupt[i] = 0xff;
  const err = await read(corrupt).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SourceFormatError);
  expect((err as Error).message).toMatch(/Parquet: /);
});
