// The text layer of a PDF, one string per page, read by pdfjs-dist 5's legacy build (Node 20) in
// a worker thread: pdfjs is an ES module, and a hostile PDF then costs a thread, not the service.
import { parentPort, workerData } from 'node:worker_threads';

const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
try {
  const doc = await pdfjs.getDocument({
    data: new Uint8Array(workerData.bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  const pages = [];
  for (let n = 1; n <= Math.min(doc.numPages, workerData.maxPages); n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if (typeof item.str !== 'string') continue;
      text += item.str + (item.hasEOL ? '\n' : ' ');
    }
    pages.push(text.replace(/[ \t]+\n/g, '\n').trim());
  }
  parentPort.postMessage({ pages });
} catch (err) {
  parentPort.postMessage({
    error:
      err && err.name === 'PasswordException' ? 'the PDF is encrypted' : `not a readable PDF (${err && err.message})`,
  });
}
