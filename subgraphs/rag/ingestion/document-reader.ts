// From an uploaded file to text: the media type from the bytes, the file name and the declared
// type (in that order of trust), then plain text, Markdown, HTML, a PDF's text layer, or, for a
// scanned PDF or an image, the OCR service. Anything else is 415.
import { PayloadTooLargeError, UnavailableError, InputError } from '../../../platform/errors/domain-errors';
import { OcrFailedError, OcrUnavailableError, type OcrClient } from '../../../platform/clients/ocr.client';
import type { ServiceCallContext } from '../../../platform/clients/service-request';
import { htmlToText } from './html-text';
import { readPdfText } from './pdf-text';

/** 415: not a DomainError (those map to 4xx codes GraphQL also knows); the REST handler sends its statusCode. */
export class UnsupportedMediaTypeError extends Error {
  override name = 'UnsupportedMediaTypeError';
  readonly statusCode = 415;
}

export type SourceType =
  'text/plain' | 'text/markdown' | 'text/html' | 'application/pdf' | 'image/png' | 'image/jpeg' | 'image/tiff';

const BY_EXTENSION: Record<string, SourceType> = {
  txt: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

export function detectSourceType(
  bytes: Buffer,
  filename: string,
  declared: string | undefined,
): SourceType | undefined {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const tiff = bytes.subarray(0, 4).toString('latin1');
  if (tiff === 'II*\u0000' || tiff === 'MM\u0000*') return 'image/tiff';
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  const byName = ext ? BY_EXTENSION[ext] : undefined;
  const base = declared?.split(';')[0]?.trim().toLowerCase();
  const byDeclared = (Object.values(BY_EXTENSION) as string[]).includes(base ?? '') ? (base as SourceType) : undefined;
  const candidate = byName ?? byDeclared ?? (base === 'application/octet-stream' || !base ? undefined : undefined);
  if (!candidate || candidate === 'application/pdf' || candidate.startsWith('image/')) return undefined;
  // A text type must decode as UTF-8 text (no NUL bytes).
  return bytes.includes(0) ? undefined : candidate;
}

export interface ReadDocument {
  text: string;
  sourceType: SourceType;
  /** How the text was obtained: the file itself, the PDF text layer, or the OCR service. */
  extraction: 'text' | 'pdf-text-layer' | 'ocr';
  pages?: number;
  ocrJobId?: string;
}

export class DocumentReader {
  constructor(
    private readonly ocr: Pick<OcrClient, 'extract'>,
    private readonly maxBytes: number,
  ) {}

  async read(
    context: ServiceCallContext,
    file: { bytes: Buffer; filename: string; mimeType?: string },
  ): Promise<ReadDocument> {
    if (file.bytes.length > this.maxBytes)
      throw new PayloadTooLargeError(`The file is larger than ${this.maxBytes} bytes`);
    if (file.bytes.length === 0) throw InputError.of(['body', 'file'], 'The file is empty');
    const sourceType = detectSourceType(file.bytes, file.filename, file.mimeType);
    if (!sourceType)
      throw new UnsupportedMediaTypeError(
        `Unsupported file type${file.mimeType ? ` ${file.mimeType}` : ''}: upload plain text, Markdown, HTML, PDF, PNG, JPEG or TIFF`,
      );
    if (sourceType === 'application/pdf') {
      const pdf = await readPdfText(file.bytes);
      if ('error' in pdf) throw InputError.of(['body', 'file'], `The PDF cannot be read: ${pdf.error}`);
      const text = pdf.pages.join('\n\n').trim();
      // A handful of characters per page is a scan with stray marks, not a text layer.
      if (text.replace(/\s/g, '').length >= (20 * Math.max(1, pdf.pages.length)) / 4)
        return { text, sourceType, extraction: 'pdf-text-layer', pages: pdf.pages.length };
      return this.viaOcr(context, file, sourceType);
    }
    if (sourceType.startsWith('image/')) return this.viaOcr(context, file, sourceType);
    const raw = file.bytes.toString('utf8').replace(/^\uFEFF/, '');
    return { text: sourceType === 'text/html' ? htmlToText(raw) : raw, sourceType, extraction: 'text' };
  }

  private async viaOcr(
    context: ServiceCallContext,
    file: { bytes: Buffer; filename: string },
    sourceType: SourceType,
  ): Promise<ReadDocument> {
    try {
      const r = await this.ocr.extract(context, { bytes: file.bytes, filename: file.filename, mimeType: sourceType });
      return { text: r.text, sourceType, extraction: 'ocr', ocrJobId: r.jobId };
    } catch (err) {
      if (err instanceof OcrUnavailableError)
        throw new UnavailableError(`This document needs OCR and the OCR service is not available: ${err.message}`, 30);
      if (err instanceof OcrFailedError) throw InputError.of(['body', 'file'], err.message);
      throw err;
    }
  }
}
