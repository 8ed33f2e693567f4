// JSONata per record (issue 33 "transforms, declarative only"), in a worker thread with a heap
// limit and a deadline: a looping or allocating expression is stopped and reported as the pack's
// input error, and the service keeps serving. The expression is compiled first in this thread
// (cheap, bounded by its length) so a syntax error names its position without starting a thread.
// The thread runs most expressions' records through a synchronous compilation of the expression
// (jsonata.fast.mjs), and the rest through jsonata; the results are the same.
// One thread per call compiles the expression once and evaluates the records in batches of
// BATCH_RECORDS per message: a message per record would cost more than the evaluation, and the
// whole input in one message (or in workerData) would count against the thread's heap limit.
// The deadline applies to each batch.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import jsonata from 'jsonata';
import { InputError } from '../../platform/errors/domain-errors';
import { PROJECT_ROOT } from '../../platform/project-root';

const WORKER = path.join(PROJECT_ROOT, 'subgraphs', 'dataflow', 'jsonata.worker.mjs');
export const BATCH_RECORDS = 500;

export interface JsonataLimits {
  /** The most one batch of BATCH_RECORDS records may take. */
  timeoutMs: number;
  maxHeapMb: number;
}

interface Answer {
  ok: boolean;
  out?: unknown[];
  /** How many of the batch's records the fast path answered (jsonata.fast.mjs). */
  fast?: number;
  error?: string;
}

export interface EvaluationOptions {
  /** false: jsonata's own evaluator for every record (the reference the tests compare with). */
  fast?: boolean;
  /** Filled in: how many records the fast path answered. */
  stats?: { fast: number };
}

/** The expression's result for each record, in order; InputError naming `loc` when it fails or exceeds a limit. */
export async function evaluatePerRecord(
  expression: string,
  records: unknown[],
  limits: JsonataLimits,
  loc: (string | number)[],
  options: EvaluationOptions = {},
): Promise<unknown[]> {
  try {
    jsonata(expression);
  } catch (err) {
    throw InputError.of(loc, `JSONata syntax error: ${(err as Error).message}`, 'jsonata_syntax');
  }
  if (records.length === 0) return [];
  const worker = new Worker(WORKER, {
    workerData: { expression, fast: options.fast !== false },
    resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 16 },
  });
  // A thread stopped at the deadline can still report running out of heap afterwards: with no
  // listener left, that 'error' event would be thrown in the service's own thread.
  worker.on('error', () => {});
  try {
    const out: unknown[] = [];
    for (let at = 0; at < records.length; at += BATCH_RECORDS) {
      const answer = await evaluateBatch(worker, records.slice(at, at + BATCH_RECORDS), limits);
      if (!answer.ok) throw InputError.of(loc, answer.error ?? 'JSONata failed', 'jsonata_failed');
      for (const v of answer.out ?? []) out.push(v);
      if (options.stats) options.stats.fast += answer.fast ?? 0;
    }
    return out;
  } finally {
    void worker.terminate();
  }
}

/** One batch's answer, or the reason the thread was stopped (deadline, heap) or died. */
function evaluateBatch(worker: Worker, batch: unknown[], limits: JsonataLimits): Promise<Answer> {
  return new Promise<Answer>((resolve) => {
    const done = (answer: Answer) => {
      clearTimeout(timer);
      worker.off('message', done);
      worker.off('error', failed);
      resolve(answer);
    };
    const failed = (err: Error) => {
      const heap = /memory|heap/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      done({
        ok: false,
        error: heap ? `JSONata exceeded its memory limit (${limits.maxHeapMb} MB) and was stopped` : err.message,
      });
    };
    const timer = setTimeout(() => {
      void worker.terminate();
      done({ ok: false, error: `JSONata took longer than ${limits.timeoutMs} ms and was stopped` });
    }, limits.timeoutMs);
    worker.on('message', done);
    worker.on('error', failed);
    worker.postMessage(batch);
  });
}
