// Tier 1's engine: a pool of tesseract.js workers sized to the cores, created once at start and
// reused for every page (a worker costs ~300 ms and ~40 MB to create). Language data comes from
// the @tesseract.js-data/eng package (no network; cache off). A worker that fails a page is
// replaced, so one corrupt upload never leaves the pool short.
import os from 'node:os';
import path from 'node:path';
import { createWorker, OEM, type Worker } from 'tesseract.js';

export interface RecognisedPage {
  text: string;
  /** 0..1 */
  confidence: number;
}

/**
 * The two English models @tesseract.js-data/eng ships: `4.0.0_best_int` (the LSTM of tessdata_best,
 * integerised; 2.9 MB) and `4.0.0` (tessdata's standard file, legacy engine plus its LSTM; 10.9 MB).
 * Both run LSTM only here. Measured in docs/ocr.md; best_int is the default.
 */
export type LangData = '4.0.0_best_int' | '4.0.0';

export function englishLangPath(data: LangData = '4.0.0_best_int'): string {
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), data);
}

export class TesseractPool {
  private idle: Worker[] = [];
  private waiting: ((w: Worker) => void)[] = [];
  private starting: Promise<void> | null = null;
  private created = 0;
  private closed = false;

  /**
   * `langDir`: a directory holding an uncompressed `eng.traineddata` to use instead of the package's
   * (OCR_LANG_PATH; e.g. Debian's tessdata_fast at /usr/share/tesseract-ocr/5/tessdata).
   */
  constructor(
    readonly size = Math.max(1, os.availableParallelism?.() ?? os.cpus().length),
    readonly langData: LangData = '4.0.0_best_int',
    readonly langDir?: string,
  ) {
    if (langData !== '4.0.0_best_int' && langData !== '4.0.0')
      throw new Error(`OCR_LANG_DATA must be 4.0.0_best_int or 4.0.0, not ${String(langData)}`);
  }

  /** Creates the workers (once; later calls wait for the same start). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const workers = await Promise.all(Array.from({ length: this.size }, () => this.newWorker()));
      for (const w of workers) this.release(w);
    })();
    return this.starting;
  }

  get healthy(): boolean {
    return !this.closed && this.created >= this.size;
  }

  get workers(): number {
    return this.size;
  }

  private async newWorker(): Promise<Worker> {
    const worker = await createWorker(
      'eng',
      OEM.LSTM_ONLY,
      this.langDir
        ? { langPath: this.langDir, cacheMethod: 'none', gzip: false }
        : { langPath: englishLangPath(this.langData), cacheMethod: 'none', gzip: true },
    );
    // Tesseract retries every low-confidence line upside-down-in-colour (white on black), which on a
    // speckled scan is many lines; our pages are dark on light after preprocessing. Off: 9% less
    // CPU a page on the tuning set at the same CER (991 -> 901 ms, 5.68% -> 5.63%).
    await worker.setParameters({ tessedit_do_invert: '0' } as Parameters<Worker['setParameters']>[0]);
    this.created++;
    return worker;
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next(worker);
    else this.idle.push(worker);
  }

  private async acquire(): Promise<Worker> {
    await this.start();
    if (this.closed) throw new Error('OCR engine is stopped');
    const w = this.idle.pop();
    if (w) return w;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Recognises one page image (any format leptonica reads; we send PGM). */
  async recognise(image: Buffer): Promise<RecognisedPage> {
    const worker = await this.acquire();
    try {
      const { data } = await worker.recognize(image);
      this.release(worker);
      return { text: data.text.trim(), confidence: Math.max(0, Math.min(1, data.confidence / 100)) };
    } catch (err) {
      // The worker's state after a failure is unknown: replace it.
      this.created--;
      void worker.terminate().catch(() => undefined);
      void this.newWorker().then(
        (w) => this.release(w),
        () => undefined,
      );
      throw err;
    }
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.starting?.catch(() => undefined);
    const all = this.idle.splice(0);
    await Promise.all(all.map((w) => w.terminate().catch(() => undefined)));
  }
}
