// Tier 1's preprocessing, in plain TypeScript over the decoded pixels, so what tesseract sees is
// a clean, level, binary page at a size its models read well: grayscale, resolution
// normalisation, denoise (3x3 median, only when the page is speckled), deskew (angle by
// projection profile, then rotation) and adaptive threshold (Bradley's mean over an integral
// image, which survives uneven lighting where one global threshold does not).

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, 0 black .. 255 white, row-major. */
  data: Uint8Array;
}

export interface PreprocessReport {
  scale: number;
  denoised: boolean;
  skewDegrees: number;
}

/** ITU-R BT.601 luma of RGBA pixels; transparent pixels count as white paper. */
export function grayscale(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): GrayImage {
  const data = new Uint8Array(width * height);
  for (let i = 0, p = 0; p < data.length; i += 4, p++) {
    const a = rgba[i + 3]! / 255;
    const luma = 0.299 * rgba[i]! + 0.587 * rgba[i + 1]! + 0.114 * rgba[i + 2]!;
    data[p] = Math.round(luma * a + 255 * (1 - a));
  }
  return { width, height, data };
}

/** Bilinear resize. */
export function resize(img: GrayImage, width: number, height: number): GrayImage {
  const out = new Uint8Array(width * height);
  const sx = img.width / width;
  const sy = img.height / height;
  for (let y = 0; y < height; y++) {
    const fy = Math.max(0, (y + 0.5) * sy - 0.5);
    const y0 = Math.min(img.height - 1, Math.floor(fy));
    const y1 = Math.min(img.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = Math.max(0, (x + 0.5) * sx - 0.5);
      const x0 = Math.min(img.width - 1, Math.floor(fx));
      const x1 = Math.min(img.width - 1, x0 + 1);
      const wx = fx - x0;
      const top = img.data[y0 * img.width + x0]! * (1 - wx) + img.data[y0 * img.width + x1]! * wx;
      const bottom = img.data[y1 * img.width + x0]! * (1 - wx) + img.data[y1 * img.width + x1]! * wx;
      out[y * width + x] = Math.round(top * (1 - wy) + bottom * wy);
    }
  }
  return { width, height, data: out };
}

/**
 * Scales the page so its longer side is within [minSide, maxSide]: small scans are enlarged so
 * glyphs have enough pixels for the recogniser, huge ones reduced so a page stays fast.
 */
export function normaliseResolution(img: GrayImage, minSide = 1000, maxSide = 2400): { image: GrayImage; scale: number } {
  const longest = Math.max(img.width, img.height);
  const scale = longest < minSide ? Math.min(3, minSide / longest) : longest > maxSide ? maxSide / longest : 1;
  if (scale === 1) return { image: img, scale };
  return { image: resize(img, Math.max(1, Math.round(img.width * scale)), Math.max(1, Math.round(img.height * scale))), scale };
}

/** 3x3 median filter (edges copied). */
export function median3(img: GrayImage): GrayImage {
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(data);
  const win = new Uint8Array(9);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      let k = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) win[k++] = data[(y + dy) * w + x + dx]!;
      // Insertion sort of nine values: faster than a general sort at this size.
      for (let i = 1; i < 9; i++) {
        const v = win[i]!;
        let j = i - 1;
        while (j >= 0 && win[j]! > v) { win[j + 1] = win[j]!; j--; }
        win[j + 1] = v;
      }
      out[y * w + x] = win[4]!;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * Salt-and-pepper estimate: the share of pixels that are isolated specks (dark with all eight
 * neighbours light, or light with all eight dark). Glyph strokes are wider than one pixel, so
 * clean renders and scans score ~0 and speckled pages clearly above.
 */
export function speckleRatio(img: GrayImage): number {
  const { width: w, height: h, data } = img;
  let specks = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const dark = data[y * w + x]! < 128;
      let same = false;
      for (let dy = -1; dy <= 1 && !same; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if ((dx || dy) && (data[(y + dy) * w + x + dx]! < 128) === dark) { same = true; break; }
        }
      }
      if (!same) specks++;
    }
  }
  return specks / (w * h);
}

/** Bradley adaptive threshold over an integral image: a pixel is ink when darker than (1 - t) of its window's mean. */
export function adaptiveThreshold(img: GrayImage, t = 0.15, window?: number): GrayImage {
  const { width: w, height: h, data } = img;
  const s = window ?? Math.max(15, Math.round(Math.max(w, h) / 40)) | 1;
  const half = s >> 1;
  const integral = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += data[y * w + x]!;
      integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1]! + row;
    }
  }
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - half);
    const y1 = Math.min(h, y + half + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(0, x - half);
      const x1 = Math.min(w, x + half + 1);
      const sum = integral[y1 * (w + 1) + x1]! - integral[y0 * (w + 1) + x1]! - integral[y1 * (w + 1) + x0]! + integral[y0 * (w + 1) + x0]!;
      const mean = sum / ((x1 - x0) * (y1 - y0));
      out[y * w + x] = data[y * w + x]! < mean * (1 - t) ? 0 : 255;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * The page's skew in degrees (positive: text lines descend to the right), by projection profile:
 * the angle at which the ink's row histogram is sharpest (largest sum of squares), searched
 * coarse then fine within ±maxDegrees on a reduced copy of the page.
 */
export function estimateSkew(img: GrayImage, maxDegrees = 10): number {
  const reduce = Math.min(1, 800 / Math.max(img.width, img.height));
  const small = reduce < 1 ? resize(img, Math.max(1, Math.round(img.width * reduce)), Math.max(1, Math.round(img.height * reduce))) : img;
  const binary = adaptiveThreshold(small, 0.2);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < binary.height; y++) {
    for (let x = 0; x < binary.width; x++) {
      if (binary.data[y * binary.width + x] === 0) { xs.push(x); ys.push(y); }
    }
  }
  if (xs.length < 50) return 0;
  const diag = Math.ceil(Math.hypot(binary.width, binary.height));
  const bins = new Float64Array(diag * 2 + 1);
  const score = (degrees: number) => {
    const a = (degrees * Math.PI) / 180;
    const sin = Math.sin(a);
    const cos = Math.cos(a);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[Math.round(ys[i]! * cos - xs[i]! * sin) + diag]! += 1;
    let sum = 0;
    for (let i = 0; i < bins.length; i++) sum += bins[i]! * bins[i]!;
    return sum;
  };
  const search = (from: number, to: number, step: number) => {
    let best = 0;
    let bestScore = -1;
    for (let d = from; d <= to + 1e-9; d += step) {
      const s = score(d);
      if (s > bestScore) { bestScore = s; best = d; }
    }
    return best;
  };
  const coarse = search(-maxDegrees, maxDegrees, 0.5);
  const fine = search(coarse - 0.5, coarse + 0.5, 0.1);
  return Math.round(fine * 10) / 10;
}

/** Rotates by `degrees` counter-clockwise about the centre (bilinear; uncovered corners white). */
export function rotate(img: GrayImage, degrees: number): GrayImage {
  const { width: w, height: h, data } = img;
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = (w - 1) / 2;
  const cy = (h - 1) / 2;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // Inverse mapping: where in the source does this output pixel come from.
      const dx = x - cx;
      const dy = y - cy;
      const sx = cos * dx - sin * dy + cx;
      const sy = sin * dx + cos * dy + cy;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= w - 1 || y0 >= h - 1) { out[y * w + x] = 255; continue; }
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * w + x0;
      const top = data[i]! * (1 - fx) + data[i + 1]! * fx;
      const bottom = data[i + w]! * (1 - fx) + data[i + w + 1]! * fx;
      out[y * w + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { width: w, height: h, data: out };
}

/** Binary PGM (P5): leptonica inside tesseract reads it directly, with no PNG encode/decode. */
export function toPgm(img: GrayImage): Buffer {
  const header = Buffer.from(`P5\n${img.width} ${img.height}\n255\n`, 'latin1');
  return Buffer.concat([header, Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength)]);
}

/** The whole chain for one page. Denoise first: resizing would smear specks into grey blobs. */
export function preprocessPage(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): { image: GrayImage; report: PreprocessReport } {
  const gray = grayscale(rgba, width, height);
  const denoised = speckleRatio(gray) > 0.001;
  const { image: sized, scale } = normaliseResolution(denoised ? median3(gray) : gray);
  let page = sized;
  const skewDegrees = estimateSkew(page);
  // estimateSkew's angle is the rotation that levels the lines.
  if (Math.abs(skewDegrees) >= 0.3) page = rotate(page, skewDegrees);
  return { image: adaptiveThreshold(page), report: { scale, denoised, skewDegrees } };
}
