// PDF pages for OCR: the text layer where a page has one, rendered pixels where it has none.
// The work runs in a worker thread (pdf-pages.worker.mjs): pdfjs-dist 5 is an ES module, and a
// hostile PDF then costs a thread that ends, never the service's event loop.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../../platform/project-root';
import type { Rgba } from './image-decoder';

export interface PdfPage {
  page: number;
  text?: string;
  rgba?: Rgba;
}

export interface PdfRead {
  pages: PdfPage[];
  /** 'encrypted', or why the PDF could not be read. */
  error?: string;
}

export interface PdfReader {
  read(bytes: Buffer, limits: { maxPages: number; maxPixels: number }): Promise<PdfRead>;
}

const WORKER = path.join(PROJECT_ROOT, 'subgraphs', 'ocr', 'pdf-pages.worker.mjs');

export function workerPdfReader(timeoutMs = 60_000): PdfReader {
  return {
    read(bytes, limits) {
      return new Promise((resolve) => {
        const worker = new Worker(WORKER, { workerData: { bytes, ...limits }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
        const timer = setTimeout(() => { void worker.terminate(); resolve({ pages: [], error: 'reading it took too long' }); }, timeoutMs);
        worker.once('message', (answer: { pages?: { page: number; text?: string; width?: number; height?: number; rgba?: Uint8ClampedArray }[]; error?: string }) => {
          clearTimeout(timer);
          void worker.terminate();
          if (answer.error) return resolve({ pages: [], error: answer.error });
          resolve({
            pages: (answer.pages ?? []).map((p) => (p.text !== undefined ? { page: p.page, text: p.text } : { page: p.page, rgba: { width: p.width!, height: p.height!, data: p.rgba! } })),
          });
        });
        worker.once('error', (err) => { clearTimeout(timer); resolve({ pages: [], error: err.message }); });
      });
    },
  };
}
