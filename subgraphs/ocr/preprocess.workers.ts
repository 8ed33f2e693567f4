// Tier 1's preprocessing off the event loop: a few worker threads run preprocessPage, so a page's
// ~0.5-1 s of pixel work never stalls uploads, polls and cache hits. The page's RGBA buffer is
// transferred to the thread and back (no copy; the caller keeps it for tier 2), and the PGM that
// tesseract reads is transferred out. Worker threads are enough here: the code is our own
// TypeScript over plain arrays, which cannot segfault the way a native decoder can.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PreprocessReport } from './preprocess';

export interface PreparedPage {
  /** The binary page as PGM, for tesseract. */
  pgm: Buffer;
  report: PreprocessReport;
  /** The caller's pixels, handed back. */
  rgba: Uint8ClampedArray;
}

interface Job {
  rgba: Uint8ClampedArray;
  width: number;
  height: number;
  resolve(page: PreparedPage): void;
  reject(err: Error): void;
}

// The thread loads preprocess.js from dist, or preprocess.ts when running from source (jest,
// scripts), transpiling it with the TypeScript compiler that is then installed.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.module.endsWith('.ts')) {
  const ts = require(require.resolve('typescript', { paths: [require('node:path').dirname(workerData.module)] }));
  const fs = require('node:fs');
  require.extensions['.ts'] = (m, f) => m._compile(ts.transpileModule(fs.readFileSync(f, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, f);
}
const { preprocessPage, toPgm } = require(workerData.module);
parentPort.on('message', ({ rgba, width, height }) => {
  try {
    const { image, report } = preprocessPage(rgba, width, height);
    const pgm = toPgm(image); // a buffer of its own: transferred, not copied
    parentPort.postMessage({ pgm, report, rgba }, [pgm.buffer, rgba.buffer]);
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err), rgba }, [rgba.buffer]);
  }
});
`;

function modulePath(): string {
  const ext = __filename.endsWith('.ts') ? '.ts' : '.js';
  return require.resolve(`./preprocess${ext}`);
}

/** The pixels as a buffer the thread may take over (a view into a shared or pooled buffer is copied). */
function transferable(rgba: Uint8ClampedArray): Uint8ClampedArray {
  if (rgba.byteOffset === 0 && rgba.byteLength === rgba.buffer.byteLength && rgba.buffer instanceof ArrayBuffer)
    return rgba;
  return new Uint8ClampedArray(rgba);
}

export class PreprocessWorkers {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly queue: Job[] = [];
  private readonly busy = new Map<Worker, Job>();
  private closed = false;

  constructor(readonly size = Math.max(1, os.availableParallelism?.() ?? os.cpus().length)) {}

  private spawn(): Worker {
    const worker = new Worker(THREAD, { eval: true, workerData: { module: modulePath() } });
    worker.unref();
    this.all.add(worker);
    worker.on(
      'message',
      (msg: { pgm?: Uint8Array; report?: PreprocessReport; rgba: Uint8ClampedArray; error?: string }) => {
        const job = this.busy.get(worker);
        this.busy.delete(worker);
        if (job) {
          if (msg.error !== undefined || !msg.pgm || !msg.report)
            job.reject(new Error(`preprocessing failed: ${msg.error ?? 'no image'}`));
          else
            job.resolve({
              pgm: Buffer.from(msg.pgm.buffer, msg.pgm.byteOffset, msg.pgm.byteLength),
              report: msg.report,
              rgba: msg.rgba,
            });
        }
        this.release(worker);
      },
    );
    worker.on('error', (err) => this.lost(worker, err));
    worker.on('exit', (code) => {
      if (this.all.has(worker)) this.lost(worker, new Error(`preprocessing thread exited (${code})`));
    });
    return worker;
  }

  private lost(worker: Worker, err: Error): void {
    this.all.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    job?.reject(err);
    if (!this.closed && this.queue.length > 0) this.release(this.spawn());
  }

  private release(worker: Worker): void {
    const job = this.queue.shift();
    if (!job) {
      this.idle.push(worker);
      return;
    }
    this.busy.set(worker, job);
    const rgba = transferable(job.rgba);
    worker.postMessage({ rgba, width: job.width, height: job.height }, [rgba.buffer as ArrayBuffer]);
  }

  /** Preprocesses one page; `rgba` is handed to a thread and comes back in the answer (do not use it meanwhile). */
  run(rgba: Uint8ClampedArray, width: number, height: number): Promise<PreparedPage> {
    if (this.closed) return Promise.reject(new Error('OCR preprocessing is stopped'));
    return new Promise((resolve, reject) => {
      this.queue.push({ rgba, width, height, resolve, reject });
      const worker = this.idle.pop() ?? (this.all.size < this.size ? this.spawn() : undefined);
      if (worker) this.release(worker);
    });
  }

  async stop(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('OCR preprocessing is stopped'));
    const workers = [...this.all];
    this.all.clear();
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
