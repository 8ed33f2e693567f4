// Encodes RGBA pixels as PNG (for the vision model's data URL) with @napi-rs/canvas.
import { createCanvas } from '@napi-rs/canvas';
import type { Rgba } from './document-decoder';

export async function encodePng(rgba: Rgba): Promise<Buffer> {
  const canvas = createCanvas(rgba.width, rgba.height);
  const g = canvas.getContext('2d');
  const img = g.createImageData(rgba.width, rgba.height);
  img.data.set(rgba.data);
  g.putImageData(img, 0, 0);
  return canvas.encode('png');
}
