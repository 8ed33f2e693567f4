// Tier 1's preprocessing on generated pages: the skew of a rotated page is found (sign and size)
// and removed, speckle is detected and filtered on noisy pages only, the adaptive threshold gives
// a binary page, resolution is normalised; and the header sniffing that refuses bombs.
import { createCanvas } from '@napi-rs/canvas';
import { invoiceLines, invoicePage, renderPage } from '../../fixtures/ocr/invoice-pages';
import { sniffDocument, UnsupportedDocumentError, CorruptDocumentError } from '../../../subgraphs/ocr/document-kind';
import { adaptiveThreshold, estimateSkew, grayscale, median3, normaliseResolution, preprocessPage, rotate, speckleRatio, type GrayImage } from '../../../subgraphs/ocr/preprocess';

function pixels(lines: string[], options: Parameters<typeof renderPage>[1] = {}) {
  const width = options.width ?? 900;
  const page = renderPage(lines, options);
  return { ...page, rgba: (() => {
    // Rebuild RGBA from the fixture's gray so no decoder is needed here.
    const out = new Uint8ClampedArray(page.gray.width * page.gray.height * 4);
    page.gray.data.forEach((v, i) => { out[i * 4] = v; out[i * 4 + 1] = v; out[i * 4 + 2] = v; out[i * 4 + 3] = 255; });
    return out;
  })(), width };
}

const gray = (p: ReturnType<typeof invoicePage>): GrayImage => p.gray;

test.each([3, 5, 7, -4, -6])('the skew of a page rotated %d° is found within 0.5°', (degrees) => {
  const page = invoicePage(1, { rotateDegrees: degrees });
  expect(Math.abs(estimateSkew(gray(page)) - degrees)).toBeLessThanOrEqual(0.5);
});

test('a level page has no skew, and rotating by the found angle levels a skewed one', () => {
  expect(Math.abs(estimateSkew(gray(invoicePage(1))))).toBeLessThanOrEqual(0.2);
  const skewed = gray(invoicePage(1, { rotateDegrees: 5 }));
  const levelled = rotate(skewed, estimateSkew(skewed));
  expect(Math.abs(estimateSkew(levelled))).toBeLessThanOrEqual(0.5);
});

test('speckle is detected on a noisy page only, and the median removes it', () => {
  const clean = gray(invoicePage(1));
  const noisy = gray(invoicePage(1, { noise: 0.05, seed: 3 }));
  expect(speckleRatio(clean)).toBeLessThan(0.0002);
  expect(speckleRatio(noisy)).toBeGreaterThan(0.01);
  expect(speckleRatio(median3(noisy))).toBeLessThan(speckleRatio(noisy) / 10);
  expect(preprocessPage(pixels(invoiceLines()).rgba, 900, 546).report.denoised).toBe(false);
});

test('the adaptive threshold gives black ink on white under uneven light', () => {
  const p = gray(invoicePage(1));
  // Darken the right half (a shadow): a global threshold would blacken it; Bradley keeps paper white.
  const shaded = { ...p, data: p.data.map((v, i) => (i % p.width > p.width / 2 ? Math.round(v * 0.55) : v)) };
  const binary = adaptiveThreshold(shaded);
  expect(new Set(binary.data)).toEqual(new Set([0, 255]));
  let black = 0;
  for (let i = 0; i < binary.data.length; i++) if (i % p.width > p.width / 2 && binary.data[i] === 0) black++;
  expect(black / (binary.data.length / 2)).toBeLessThan(0.15);
});

test('resolution normalisation enlarges small pages and reduces huge ones', () => {
  const small: GrayImage = { width: 300, height: 100, data: new Uint8Array(300 * 100).fill(255) };
  expect(normaliseResolution(small).image.width).toBe(900);
  const big: GrayImage = { width: 4800, height: 100, data: new Uint8Array(4800 * 100).fill(255) };
  expect(normaliseResolution(big).image.width).toBe(2400);
  const { report } = preprocessPage(pixels(['Hello'], { width: 900 }).rgba, 900, 80);
  expect(report.scale).toBeCloseTo(1000 / 900, 3);
});

test('grayscale treats transparency as paper', () => {
  expect(Array.from(grayscale(new Uint8ClampedArray([0, 0, 0, 0, 255, 0, 0, 255]), 2, 1).data)).toEqual([255, 76]);
});

describe('sniffing from the bytes', () => {
  const png = invoicePage(1).png;
  test('PNG, JPEG and PDF are recognised with their declared size', () => {
    expect(sniffDocument(png)).toEqual({ kind: 'image', mimeType: 'image/png', width: 900, height: 546 });
    const jpeg = createCanvas(321, 123).toBuffer('image/jpeg');
    expect(sniffDocument(jpeg)).toMatchObject({ kind: 'image', mimeType: 'image/jpeg', width: 321, height: 123 });
    expect(sniffDocument(Buffer.from('%PDF-1.7\n...'))).toEqual({ kind: 'pdf', mimeType: 'application/pdf' });
  });
  test('a bomb is seen from the header alone', () => {
    const bomb = Buffer.from(png.subarray(0, 24));
    bomb.writeUInt32BE(100000, 16);
    bomb.writeUInt32BE(100000, 20);
    expect(sniffDocument(bomb)).toMatchObject({ width: 100000, height: 100000 });
  });
  test('text is unsupported; a damaged header is corrupt', () => {
    expect(() => sniffDocument(Buffer.from('hello world'))).toThrow(UnsupportedDocumentError);
    expect(() => sniffDocument(png.subarray(0, 12))).toThrow(CorruptDocumentError);
    expect(() => sniffDocument(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 1]))).toThrow(CorruptDocumentError);
  });
});
