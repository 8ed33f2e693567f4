// What an upload is, from its bytes (never from the client's filename or content type), and for
// images how many pixels decoding would produce, read from the header alone: a decompression bomb
// (a few KB declaring a 50,000 x 50,000 image) is refused before any decoder allocates for it.
import { UnsupportedMediaTypeError } from '../../platform/errors/domain-errors';

export type DocumentKind =
  { kind: 'image'; mimeType: string; width: number; height: number } | { kind: 'pdf'; mimeType: 'application/pdf' };

/** Not an image or PDF this service reads: 415 over REST (the platform's error handler maps it). */
export class UnsupportedDocumentError extends UnsupportedMediaTypeError {}
/** Looks like a supported format but its header cannot be read (422). */
export class CorruptDocumentError extends Error {}

const startsWith = (b: Buffer, sig: number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

function pngSize(b: Buffer) {
  // IHDR is the first chunk: length(4) 'IHDR'(4) width(4) height(4).
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') throw new CorruptDocumentError('PNG header is damaged');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpegSize(b: Buffer) {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) throw new CorruptDocumentError('JPEG marker stream is damaged');
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    // Standalone markers carry no length.
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    if (length < 2) throw new CorruptDocumentError('JPEG marker stream is damaged');
    i += 2 + length;
  }
  throw new CorruptDocumentError('JPEG has no frame header');
}

function webpSize(b: Buffer) {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X' && b.length >= 30) return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ' && b.length >= 30)
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L' && b.length >= 25) {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  throw new CorruptDocumentError('WebP header is damaged');
}

export function sniffDocument(bytes: Buffer): DocumentKind {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { kind: 'pdf', mimeType: 'application/pdf' }; // %PDF-
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { kind: 'image', mimeType: 'image/png', ...pngSize(bytes) };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { kind: 'image', mimeType: 'image/jpeg', ...jpegSize(bytes) };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) {
    if (bytes.length < 10) throw new CorruptDocumentError('GIF header is damaged');
    return { kind: 'image', mimeType: 'image/gif', width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (startsWith(bytes, [0x42, 0x4d]) && bytes.length >= 26) {
    return {
      kind: 'image',
      mimeType: 'image/bmp',
      width: Math.abs(bytes.readInt32LE(18)),
      height: Math.abs(bytes.readInt32LE(22)),
    };
  }
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP')
    return { kind: 'image', mimeType: 'image/webp', ...webpSize(bytes) };
  throw new UnsupportedDocumentError('The file is not an image (PNG, JPEG, GIF, BMP, WebP) or a PDF');
}
