// The OCR service's decoding process (plain ES module, run with child_process.fork). Images are
// decoded and PDFs read here, never in the service: @napi-rs/canvas crashes the whole process
// (SIGSEGV) on some malformed images (a truncated JPEG, a PNG cut after its header), so that
// crash must cost only this process, which the service replaces, and the upload gets a 422.
// pdfjs-dist 5 is ESM-only, which a plain module imports without any loader tricks.
//   {id, op: 'image', bytes}                      -> {id, width, height, rgba} | {id, error}
//   {id, op: 'pdf', bytes, maxPages, maxPixels}   -> {id, pages: [{page, text} | {page, width, height, rgba}]} | {id, error}
import { createCanvas, loadImage } from '@napi-rs/canvas';

let pdfjs;

async function decodeImage(bytes) {
  const image = await loadImage(Buffer.from(bytes));
  if (!image.width || !image.height) return { error: 'The image could not be decoded' };
  const canvas = createCanvas(image.width, image.height);
  const g = canvas.getContext('2d');
  g.drawImage(image, 0, 0);
  return { width: image.width, height: image.height, rgba: g.getImageData(0, 0, image.width, image.height).data };
}

async function readPdf(bytes, maxPages, maxPixels) {
  pdfjs ??= await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc;
  try {
    doc = await pdfjs.getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      disableFontFace: true,
      verbosity: 0,
      stopAtErrors: true,
    }).promise;
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
        text += item.str + (item.hasEOL ? '\n' : item.str && !item.str.endsWith(' ') ? ' ' : '');
      }
      text = text
        .split('\n')
        .map((l) => l.trim())
        .join('\n')
        .trim();
      // A page with (almost) no text layer is a scan: render it for OCR at 2x (~144 dpi).
      if (text.replace(/\s/g, '').length >= 3) {
        pages.push({ page: n, text });
      } else {
        const viewport = page.getViewport({ scale: 2 });
        const width = Math.ceil(viewport.width);
        const height = Math.ceil(viewport.height);
        if (width * height > maxPixels)
          return { error: `page ${n} would render to ${width}x${height} pixels, more than allowed` };
        const { canvas, context } = doc.canvasFactory.create(width, height);
        context.fillStyle = '#ffffff';
        context.fillRect(0, 0, width, height);
        await page.render({ canvasContext: context, canvas, viewport }).promise;
        pages.push({ page: n, width, height, rgba: context.getImageData(0, 0, width, height).data });
      }
      page.cleanup();
    }
    return { pages };
  } catch (err) {
    return { error: (err && err.message) || 'unreadable' };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

process.on('message', async (msg) => {
  let answer;
  try {
    answer = msg.op === 'image' ? await decodeImage(msg.bytes) : await readPdf(msg.bytes, msg.maxPages, msg.maxPixels);
  } catch (err) {
    answer = { error: (err && err.message) || 'unreadable' };
  }
  process.send({ id: msg.id, ...answer });
});
// The service is gone (crashed or stopped without killing us): never linger as an orphan.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
