// The retrieval service's housekeeping, every RAG_MAINTENANCE_INTERVAL_MS and once at start:
// ingestion jobs whose process died (lease run out) are resumed here, and semantic-cache answers
// past their 24 h TTL are deleted (they were never served after it; now they stop taking space).
// Every copy of the service runs it: claims skip jobs another copy has locked, and a purge is
// one idempotent DELETE.
import type { Logger } from '../../platform/logging/logger';
import type { AnswerService } from './answer.service';
import type { DocumentService } from './document.service';

export interface RagMaintenance {
  /** One pass now (also what the timer runs). */
  sweep(): Promise<{ resumed: number; failed: number; purged: number }>;
  stop(): Promise<void>;
}

export function startRagMaintenance(deps: { documents: DocumentService; answers: AnswerService; intervalMs: number; logger: Logger }): RagMaintenance {
  const { documents, answers, logger } = deps;
  let pass: Promise<unknown> = Promise.resolve();
  const sweep = async () => {
    const jobs = await documents.resumeAbandoned();
    const purged = await answers.purgeExpired();
    if (jobs.resumed + jobs.failed + purged > 0) logger.info({ ...jobs, purged_cache_answers: purged }, 'rag maintenance');
    return { ...jobs, purged };
  };
  const tick = () => {
    pass = sweep().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'rag maintenance failed; next pass retries'));
  };
  tick();
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await pass;
      await documents.settle();
    },
  };
}
