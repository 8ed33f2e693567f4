// JSONata per record (issue 33 "transforms, declarative only"), in a worker thread with a heap
// limit and a deadline: a looping or allocating expression is stopped and reported as the pack's
// input error, and the service keeps serving. The expression is compiled first in this thread
// (cheap, bounded by its length) so a syntax error names its position without starting a thread.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import jsonata from 'jsonata';
import { InputError } from '../../platform/errors/domain-errors';
import { PROJECT_ROOT } from '../../platform/project-root';

const WORKER = path.join(PROJECT_ROOT, 'subgraphs', 'dataflow', 'jsonata.worker.mjs');

export interface JsonataLimits {
  timeoutMs: number;
  maxHeapMb: number;
}

/** The expression's result for each record, in order; InputError naming `loc` when it fails or exceeds a limit. */
export async function evaluatePerRecord(
  expression: string,
  records: unknown[],
  limits: JsonataLimits,
  loc: (string | number)[],
): Promise<unknown[]> {
  try {
    jsonata(expression);
  } catch (err) {
    throw InputError.of(loc, `JSONata syntax error: ${(err as Error).message}`, 'jsonata_syntax');
  }
  const answer = await new Promise<{ ok: boolean; out?: unknown[]; error?: string }>((resolve) => {
    const worker = new Worker(WORKER, {
      workerData: { expression, records },
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 16 },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ ok: false, error: `JSONata took longer than ${limits.timeoutMs} ms and was stopped` });
    }, limits.timeoutMs);
    worker.once('message', (msg: { ok: boolean; out?: unknown[]; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(msg);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      const heap = /memory|heap/i.test(err.message) || (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      resolve({
        ok: false,
        error: heap ? `JSONata exceeded its memory limit (${limits.maxHeapMb} MB) and was stopped` : err.message,
      });
    });
  });
  if (!answer.ok) throw InputError.of(loc, answer.error ?? 'JSONata failed', 'jsonata_failed');
  return answer.out ?? [];
}
