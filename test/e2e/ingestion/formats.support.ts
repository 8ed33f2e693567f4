// Builds the binary sources the format tests read, in the test itself: ZIP archives with yazl
// (a devDependency), XLSX workbooks as the minimal set of parts Excel writes (content types,
// workbook and its relationships, shared strings, one part per sheet), and Parquet files with
// hyparquet-writer (a devDependency).
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import yazl from 'yazl';

/** A ZIP archive of the given entries (as pairs, a name may be listed twice), deflated unless `store`. */
export async function zip(
  entries: Record<string, string | Buffer> | [string, string | Buffer][],
  options: { store?: boolean } = {},
): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, content] of Array.isArray(entries) ? entries : Object.entries(entries)) {
    z.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), name, {
      compress: !options.store,
    });
  }
  z.end();
  const parts: Buffer[] = [];
  for await (const chunk of z.outputStream as AsyncIterable<Buffer>) parts.push(chunk);
  return Buffer.concat(parts);
}

type CellValue = string | number | boolean | null | undefined;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `0` -> A, `27` -> AB. */
export function columnName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

export interface SheetSpec {
  name: string;
  rows: CellValue[][];
}

/**
 * The XML parts of a workbook: strings go to the shared string table, except with `inline`, where
 * every other string is an inline string (both kinds are read). `extra` adds or replaces parts.
 */
export function xlsxParts(
  sheets: SheetSpec[],
  options: { inline?: boolean; extra?: Record<string, string | Buffer> } = {},
): Record<string, string | Buffer> {
  const shared: string[] = [];
  let strings = 0;
  const cell = (v: CellValue, ref: string): string => {
    if (v === null || v === undefined) return '';
    if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
    if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
    if (options.inline && strings++ % 2 === 1) return `<c r="${ref}" t="inlineStr"><is><t>${esc(v)}</t></is></c>`;
    shared.push(v);
    return `<c r="${ref}" t="s"><v>${shared.length - 1}</v></c>`;
  };
  const parts: Record<string, string | Buffer> = {};
  sheets.forEach((sheet, i) => {
    const rows = sheet.rows
      .map((row, r) => `<row r="${r + 1}">${row.map((v, c) => cell(v, `${columnName(c)}${r + 1}`)).join('')}</row>`)
      .join('');
    parts[`xl/worksheets/sheet${i + 1}.xml`] =
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;
  });
  return {
    '[Content_Types].xml':
      `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
    '_rels/.rels':
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml':
      `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ` +
      `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` +
      sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
      `</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels':
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      sheets
        .map(
          (_, i) =>
            `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
        )
        .join('') +
      `</Relationships>`,
    'xl/sharedStrings.xml':
      `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${shared.length}" uniqueCount="${shared.length}">` +
      shared.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join('') +
      `</sst>`,
    ...parts,
    ...options.extra,
  };
}

export function xlsx(sheets: SheetSpec[], options: Parameters<typeof xlsxParts>[1] = {}): Promise<Buffer> {
  return zip(xlsxParts(sheets, options));
}

/**
 * Sets the uncompressed size the central directory declares for `name` (a header that lies, as a
 * crafted zip bomb's does); the local header is left as it was.
 */
export function declareSize(archive: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(archive);
  for (let i = out.length - 46; i >= 0; i--) {
    if (out.readUInt32LE(i) !== 0x02014b50) continue;
    const nameLength = out.readUInt16LE(i + 28);
    if (out.toString('utf8', i + 46, i + 46 + nameLength) === name) {
      out.writeUInt32LE(size, i + 24);
      return out;
    }
  }
  throw new Error(`no central directory entry for ${name}`);
}

/** A Parquet file of the given columns, in row groups of `rowGroupSize` rows (SNAPPY unless `codec`). */
export function parquet(
  columns: ColumnSource[],
  options: { rowGroupSize?: number; codec?: 'UNCOMPRESSED' | 'SNAPPY' } = {},
): Buffer {
  return Buffer.from(
    parquetWriteBuffer({ columnData: columns, rowGroupSize: options.rowGroupSize, codec: options.codec }),
  );
}
