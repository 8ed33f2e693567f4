// Runs in a worker thread (plain ES module: pdfjs-dist 5 is ESM-only, and a worker keeps a
// malformed PDF's parsing off the service's event loop). Reads every page's text layer with the
// pdfjs legacy build; a page without text is rendered with @napi-rs/canvas (the canvas pdfjs
// uses in Node) at 2x (~144 dpi) for OCR. Answers {pages} or {error: 'encrypted' | message}.
import { parentPort, workerData } from 'node:worker_threads';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const { bytes, maxPages, maxPixels } = workerData;

async function main() {
  let doc;
  try {
    doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, verbosity: 0, stopAtErrors: true }).promise;
  } catch (err) {
    if (err && err.name === 'PasswordException') return { error: 'encrypted' };
    return { error: (err && err.message) || 'unreadable' };
  }
  try {
    if (doc.numPages > maxPages) return { error: `it has ${doc.numPages} pages, more than the ${maxPages} allowed` };
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : (item.str && !item.str.endsWith(' ') ? ' ' : ''));
      }
      text = text.split('\n').map((l) => l.trim()).join('\n').trim();
      if (text.replace(/\s/g, '').length >= 3) {
        pages.push({ page: n, text });
        continue;
      }
      const viewport = page.getViewport({ scale: 2 });
      const width = Math.ceil(viewport.width);
      const height = Math.ceil(viewport.height);
      if (width * height > maxPixels) return { error: `page ${n} would render to ${width}x${height} pixels, more than allowed` };
      const { canvas, context } = doc.canvasFactory.create(width, height);
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, width, height);
      await page.render({ canvasContext: context, canvas, viewport }).promise;
      const data = context.getImageData(0, 0, width, height).data;
      pages.push({ page: n, width, height, rgba: new Uint8ClampedArray(data) });
      page.cleanup();
    }
    return { pages };
  } catch (err) {
    return { error: (err && err.message) || 'unreadable' };
  } finally {
    await doc.destroy();
  }
}

main().then((answer) => parentPort.postMessage(answer), (err) => parentPort.postMessage({ error: String(err && err.message) }));
