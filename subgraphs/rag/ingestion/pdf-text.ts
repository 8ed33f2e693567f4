// A PDF's text layer, page by page (pdf-text.worker.mjs). Pages without text (scans) come back
// empty: the caller sends such a PDF to the OCR service.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PROJECT_ROOT } from '../../../platform/project-root';

const WORKER = path.join(PROJECT_ROOT, 'subgraphs', 'rag', 'ingestion', 'pdf-text.worker.mjs');

export type PdfText = { pages: string[] } | { error: string };

export function readPdfText(bytes: Buffer, maxPages = 500, timeoutMs = 60_000): Promise<PdfText> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, {
      workerData: { bytes, maxPages },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ error: 'reading the PDF took too long' });
    }, timeoutMs);
    worker.once('message', (answer: PdfText) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(answer);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      resolve({ error: err.message });
    });
  });
}
