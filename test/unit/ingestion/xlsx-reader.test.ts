// XLSX sources: the first sheet or a named one, the first row as header, shared and inline
// strings, numbers and booleans; zip bombs (by declared size, by ratio, by a header that lies),
// too many entries, too many columns, a DOCTYPE, a workbook without its parts and a file that is
// not a ZIP each fail with a clear reason; entry names are never used as paths.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRecords, SourceFormatError } from '../../../subgraphs/ingestion/record-reader';
import type { IngestionLimits } from '../../../subgraphs/ingestion/pipeline.types';
import { declareSize, xlsx, xlsxParts, zip } from '../../e2e/ingestion/formats.support';

const limits: IngestionLimits = {
  maxBytes: 1 << 30,
  maxRecordBytes: 4096,
  maxColumns: 20,
  archive: { maxEntries: 50, maxEntryBytes: 64 * 1024 * 1024, maxRatio: 100 },
};
const format = { type: 'xlsx' as const };
let dir: string;

beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xlsx-reader-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function read(content: Buffer, options: { sheet?: string; limits?: IngestionLimits } = {}) {
  const file = path.join(dir, `source-${n++}.xlsx`);
  fs.writeFileSync(file, content);
  const result = await readRecords(
    () => fs.createReadStream(file),
    { ...format, sheet: options.sheet },
    options.limits ?? limits,
    undefined,
    file,
  );
  const records = [];
  for await (const r of result.records) records.push(r);
  return { columns: result.columns, records };
}

const customers = [
  ['id', 'name', 'balance', 'active'],
  [1, 'Ada & co', 10.5, true],
  [2, 'Alan <T>', -3, false],
  [3, null, 0, true],
];

it('reads the first sheet: header row, shared and inline strings, numbers, booleans, empty cells left out', async () => {
  const { columns, records } = await read(await xlsx([{ name: 'Customers', rows: customers }], { inline: true }));
  expect(columns).toEqual(['id', 'name', 'balance', 'active']);
  expect(records.map((r) => [r.offset, r.record])).toEqual([
    [0, { id: 1, name: 'Ada & co', balance: 10.5, active: true }],
    [1, { id: 2, name: 'Alan <T>', balance: -3, active: false }],
    [2, { id: 3, balance: 0, active: true }],
  ]);
  expect(new Set(records.map((r) => r.rawSha256)).size).toBe(3);
});

it('reads the sheet the format names, and says when the workbook has no such sheet', async () => {
  const book = await xlsx([
    { name: 'Notes', rows: [['note'], ['ignore me']] },
    { name: 'Customers', rows: customers },
  ]);
  const { records } = await read(book, { sheet: 'Customers' });
  expect(records).toHaveLength(3);
  expect((await read(book)).records.map((r) => r.record)).toEqual([{ note: 'ignore me' }]);
  await expect(read(book, { sheet: 'Missing' })).rejects.toThrow(/no sheet named 'Missing'/);
});

it('reads rich-text shared strings (runs joined, phonetic runs left out), formula values and sparse rows', async () => {
  const parts = xlsxParts([{ name: 'S', rows: [] }]);
  parts['xl/sharedStrings.xml'] =
    '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>code</t></si>' +
    '<si><r><rPr><b/></rPr><t>Ab</t></r><r><t>c</t></r><rPh><t>PHON</t></rPh></si></sst>';
  parts['xl/worksheets/sheet1.xml'] =
    '<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' +
    '<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="C1" t="inlineStr"><x:is><x:t>total</x:t></x:is></x:c></x:row>' +
    '<x:row r="2"/>' +
    '<x:row r="5"><x:c r="A5" t="s"><x:v>1</x:v></x:c><x:c r="C5"><x:f>1+1</x:f><x:v>2</x:v></x:c><x:c r="D5" t="e"><x:v>#DIV/0!</x:v></x:c></x:row>' +
    '</x:sheetData></x:worksheet>';
  const { columns, records } = await read(await zip(parts));
  expect(columns).toEqual(['code', 'column_2', 'total']);
  expect(records.map((r) => r.record)).toEqual([{ code: 'Abc', total: 2, column_4: '#DIV/0!' }]);
});

describe('hostile workbooks', () => {
  const bomb = (bytes: number) => {
    const parts = xlsxParts([{ name: 'S', rows: [['a']] }]);
    // A sheet padded with whitespace compresses about 1000:1.
    parts['xl/worksheets/sheet1.xml'] = `<worksheet><sheetData>${' '.repeat(bytes)}</sheetData></worksheet>`;
    return zip(parts);
  };

  it('refuses a part whose compression ratio is a zip bomb', async () => {
    await expect(read(await bomb(8 * 1024 * 1024))).rejects.toThrow(/compression ratio is over 100:1 \(a zip bomb\?\)/);
  });

  it('refuses a part that declares more inflated bytes than the limit', async () => {
    const small = { ...limits, archive: { ...limits.archive!, maxEntryBytes: 10_000 } };
    const book = await xlsx([{ name: 'S', rows: Array.from({ length: 500 }, (_, i) => [`row ${i}`]) }]);
    await expect(read(book, { limits: small })).rejects.toThrow(/inflates to \d+ bytes; at most 10000 are read/);
  });

  it('cuts off a part whose header lies about its size', async () => {
    const lying = declareSize(await bomb(8 * 1024 * 1024), 'xl/worksheets/sheet1.xml', 1000);
    const err = await read(lying).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceFormatError);
    expect((err as Error).message).toMatch(/XLSX: the part xl\/worksheets\/sheet1.xml (is refused|cannot be read)/);
  });

  it('refuses an archive with too many entries, and one that lists a name twice', async () => {
    const many: Record<string, string> = xlsxParts([{ name: 'S', rows: [['a']] }]) as Record<string, string>;
    for (let i = 0; i < 60; i++) many[`xl/media/image${i}.png`] = 'x';
    await expect(read(await zip(many))).rejects.toThrow(/lists 6\d entries; at most 50 are read/);
    const parts = Object.entries(xlsxParts([{ name: 'S', rows: [['a'], ['b']] }]));
    const twice = await zip([...parts, ['xl/worksheets/sheet1.xml', '<worksheet><sheetData/></worksheet>']]);
    await expect(read(twice)).rejects.toThrow(/an entry name is listed twice/);
  });

  it('refuses a row wider than the column limit and a row longer than the record limit', async () => {
    const wide = await xlsx([{ name: 'S', rows: [Array.from({ length: 25 }, (_, i) => `c${i}`)] }]);
    await expect(read(wide)).rejects.toThrow(/column 21; at most 20 are read/);
    const far = xlsxParts([{ name: 'S', rows: [] }]);
    far['xl/worksheets/sheet1.xml'] =
      '<worksheet><sheetData><row><c r="XFD1"><v>1</v></c></row></sheetData></worksheet>';
    await expect(read(await zip(far))).rejects.toThrow(/column 16384; at most 20 are read/);
    const long = await xlsx([{ name: 'S', rows: [['a'], ['x'.repeat(5000)]] }]);
    await expect(read(long)).rejects.toThrow(/row is longer than 4096 bytes/);
  });

  it('refuses a DOCTYPE in any part (no entity is expanded)', async () => {
    const parts = xlsxParts([{ name: 'S', rows: [['a'], ['b']] }]);
    parts['xl/sharedStrings.xml'] =
      '<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY x SYSTEM "file:///etc/passwd">]><sst><si><t>&x;</t></si></sst>';
    await expect(read(await zip(parts))).rejects.toThrow(/DOCTYPE is refused/);
  });

  it('never follows a sheet target out of the package, and names what is missing or malformed', async () => {
    const escape = xlsxParts([{ name: 'S', rows: [['a']] }]);
    escape['xl/_rels/workbook.xml.rels'] =
      '<Relationships><Relationship Id="rId1" Target="../../../etc/passwd"/></Relationships>';
    await expect(read(await zip(escape))).rejects.toThrow(/names a part that is not in the file/);

    const noBook = xlsxParts([{ name: 'S', rows: [['a']] }]);
    delete noBook['xl/workbook.xml'];
    await expect(read(await zip(noBook))).rejects.toThrow(/XLSX: not a workbook/);

    const badString = xlsxParts([{ name: 'S', rows: [] }]);
    badString['xl/worksheets/sheet1.xml'] =
      '<worksheet><sheetData><row><c t="s"><v>99</v></c></row></sheetData></worksheet>';
    await expect(read(await zip(badString))).rejects.toThrow(/shared string 99, which is not in the file/);

    const broken = xlsxParts([{ name: 'S', rows: [] }]);
    broken['xl/worksheets/sheet1.xml'] = '<worksheet><sheetData><row><c><v>1</c></row>';
    await expect(read(await zip(broken))).rejects.toThrow(/^source: XLSX: /);

    await expect(read(Buffer.from('id,name\n1,Ada\n'))).rejects.toThrow(/XLSX: not a readable ZIP container/);
    const truncated = await xlsx([{ name: 'S', rows: customers }]);
    await expect(read(truncated.subarray(0, truncated.length - 30))).rejects.toThrow(SourceFormatError);
  });
});
