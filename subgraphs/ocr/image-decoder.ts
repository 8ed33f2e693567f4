// Decodes an uploaded image to RGBA with @napi-rs/canvas (the same native library pdfjs renders
// PDF pages with). Only called after the header's pixel count passed the bomb check.
import { createCanvas, loadImage, type Image } from '@napi-rs/canvas';
import { CorruptDocumentError } from './document-kind';

export interface Rgba {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export async function decodeImage(bytes: Buffer): Promise<Rgba> {
  let image: Image;
  try {
    image = await loadImage(bytes);
  } catch {
    throw new CorruptDocumentError('The image could not be decoded');
  }
  // A damaged body may decode to a 0x0 image rather than throwing.
  if (image.width === 0 || image.height === 0) throw new CorruptDocumentError('The image could not be decoded');
  const canvas = createCanvas(image.width, image.height);
  const g = canvas.getContext('2d');
  g.drawImage(image, 0, 0);
  const data = g.getImageData(0, 0, image.width, image.height).data;
  return { width: image.width, height: image.height, data };
}
