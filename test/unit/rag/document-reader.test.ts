// From uploaded bytes to text: media types from the bytes, the name, then the declared type;
// a PDF's text layer through pdfjs-dist (a PDF written here, valid offsets and all); a PDF
// without text goes to OCR; HTML becomes text with its headings; other types are refused (415).
import { DocumentReader, detectSourceType } from '../../../subgraphs/rag/ingestion/document-reader';

/** A one-page PDF showing `text` (or nothing) in Helvetica, with a correct xref table. */
function pdf(text: string | null): Buffer {
  const stream = text === null ? '' : `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const noOcr = {
  extract: async () => {
    throw new Error('OCR must not be called');
  },
};

test('the PDF text layer is read; a PDF without one goes to OCR', async () => {
  const read = await new DocumentReader(noOcr, 1_000_000).read(
    { tenantId: 't' },
    { bytes: pdf('Invoices are kept for seven years after closing the account.'), filename: 'policy.pdf' },
  );
  expect(read).toMatchObject({ sourceType: 'application/pdf', extraction: 'pdf-text-layer', pages: 1 });
  expect(read.text).toContain('Invoices are kept for seven years');

  const calls: string[] = [];
  const ocr = {
    extract: async (_c: unknown, f: { filename: string; mimeType: string }) => {
      calls.push(`${f.filename} ${f.mimeType}`);
      return { jobId: 'j', text: 'scanned text', confidence: 0.9 };
    },
  };
  const scan = await new DocumentReader(ocr, 1_000_000).read(
    { tenantId: 't' },
    { bytes: pdf(null), filename: 'scan.pdf' },
  );
  expect(scan).toMatchObject({ extraction: 'ocr', text: 'scanned text', ocrJobId: 'j' });
  expect(calls).toEqual(['scan.pdf application/pdf']);
});

test('a broken PDF is a 422 on file; an unsupported type is 415; too large is 413', async () => {
  const reader = new DocumentReader(noOcr, 1_000);
  await expect(
    reader.read({ tenantId: 't' }, { bytes: Buffer.from('%PDF-1.4 garbage'), filename: 'x.pdf' }),
  ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  await expect(
    reader.read(
      { tenantId: 't' },
      { bytes: Buffer.from('PK\u0003\u0004zip'), filename: 'x.zip', mimeType: 'application/zip' },
    ),
  ).rejects.toMatchObject({ statusCode: 415 });
  await expect(
    reader.read({ tenantId: 't' }, { bytes: Buffer.alloc(2_000, 'a'), filename: 'x.txt' }),
  ).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
});

test('media type from the bytes first, then the name, then the declared type', () => {
  expect(detectSourceType(Buffer.from('%PDF-1.7'), 'a.txt', 'text/plain')).toBe('application/pdf');
  expect(detectSourceType(Buffer.from('# Title'), 'notes.md', undefined)).toBe('text/markdown');
  expect(detectSourceType(Buffer.from('<p>x</p>'), 'upload', 'text/html; charset=utf-8')).toBe('text/html');
  expect(detectSourceType(Buffer.from('plain'), 'blob', 'application/octet-stream')).toBeUndefined();
  expect(detectSourceType(Buffer.from([0x61, 0x00, 0x62]), 'a.txt', 'text/plain')).toBeUndefined();
});
