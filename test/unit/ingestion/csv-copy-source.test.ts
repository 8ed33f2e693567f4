// The whole-CSV COPY path's reader cuts a file into pieces of whole records (about 8 MiB each with
// quoted fields, at most 64 KiB without) without parsing it: the pieces, joined, are the file
// without its header, each ends at a record's end (a newline outside quotes), whatever the sizes
// of the reads that fed it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { csvCopySource } from '../../../subgraphs/ingestion/csv-copy-source';
import type { IngestionLimits } from '../../../subgraphs/ingestion/pipeline.types';

const limits: IngestionLimits = { maxBytes: 1 << 30, maxRecordBytes: 1 << 20, maxColumns: 2000 };
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-copy-source-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function piecesOf(body: string, highWaterMark: number): Promise<{ pieces: string[] }> {
  const file = path.join(dir, `f${highWaterMark}.csv`);
  fs.writeFileSync(file, body);
  const head = fs.readFileSync(file).subarray(0, 64 * 1024);
  const source = csvCopySource(() => fs.createReadStream(file, { highWaterMark }), head, { type: 'csv' }, limits)!;
  const pieces: string[] = [];
  for await (const piece of source.pieces) pieces.push(piece);
  return { pieces };
}

it('cuts a file of over 8 MiB into pieces of whole records, in order, from reads of any size', async () => {
  const header = 'id,name,note\n';
  let records = '';
  // About 20 MiB; every 1,000th record has a quoted field with a newline and a doubled quote in it.
  for (let i = 0; records.length < 20 * 1024 * 1024; i++)
    records += i % 1000 === 0 ? `${i},"a ""quoted""\nname",x\n` : `${i},name ${i},${'n'.repeat(i % 50)}\n`;
  for (const highWaterMark of [256 * 1024, 64 * 1024 + 7]) {
    const { pieces } = await piecesOf(header + records, highWaterMark);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.join('')).toBe(records);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      // A whole record starts each piece: its first field is a number.
      expect(piece).toMatch(/^[0-9]+,/);
    }
  }
});

it('finds the header across reads, and a last record without its newline', async () => {
  const header = `${Array.from({ length: 40 }, (_, i) => `column_${i}`).join(',')}\n`;
  const { pieces } = await piecesOf(`${header}1,2\n3,4`, 16);
  expect(pieces.join('')).toBe('1,2\n3,4\n');
});

it('cuts a file without quotes into pieces of at most 64 KiB at line ends, multibyte characters whole', async () => {
  // Pieces this small decode to strings V8 allocates young (issue 32); a longer record is one piece.
  const header = 'id,name,note\n';
  let records = '';
  for (let i = 0; records.length < 2 * 1024 * 1024; i++)
    records += i === 5000 ? `${i},long,${'é'.repeat(70 * 1024)}\n` : `${i},nämé ${i} 😀,${'ü'.repeat(i % 50)}\n`;
  for (const highWaterMark of [256 * 1024, 64 * 1024 + 7, 1000]) {
    const { pieces } = await piecesOf(header + records, highWaterMark);
    expect(pieces.join('')).toBe(records);
    expect(pieces.length).toBeGreaterThan(32);
    for (const piece of pieces) {
      expect(piece.endsWith('\n')).toBe(true);
      expect(piece).toMatch(/^[0-9]+,/);
      expect(piece).not.toContain('\ufffd');
      if (!piece.includes(',long,')) expect(Buffer.byteLength(piece)).toBeLessThanOrEqual(64 * 1024);
    }
  }
});
