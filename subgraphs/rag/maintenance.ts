// The retrieval service's housekeeping, every RAG_MAINTENANCE_INTERVAL_MS and once at start:
// - ingestion jobs whose process died (lease run out) are resumed here;
// - semantic-cache answers past their 24 h TTL are deleted (never served after it, now they stop
//   taking space);
// - a tenant past RAG_TENANT_INDEX_MIN_CHUNKS gets its own HNSW index (tenant-index.store.ts).
// Every copy of the service runs it: claims skip jobs another copy has locked, a purge is one
// idempotent DELETE, an index is created IF NOT EXISTS. A pass still running when the timer
// fires (an index build takes seconds) is not doubled.
import type { Logger } from '../../platform/logging/logger';
import type { AnswerService } from './answer.service';
import type { DocumentService } from './document.service';
import { tenantIndexName, type TenantIndexStore } from './tenant-index.store';

export interface RagMaintenance {
  /** One pass now (also what the timer runs). */
  sweep(): Promise<{ resumed: number; failed: number; purged: number; indexed: number }>;
  stop(): Promise<void>;
}

export function startRagMaintenance(deps: {
  documents: DocumentService;
  answers: AnswerService;
  tenantIndexes: TenantIndexStore;
  tenantIndexMinChunks: number;
  intervalMs: number;
  logger: Logger;
}): RagMaintenance {
  const { documents, answers, tenantIndexes, logger } = deps;
  const reported = new Set<string>();

  const indexLargeTenants = async (): Promise<number> => {
    if (deps.tenantIndexMinChunks <= 0) return 0;
    let built = 0;
    for (const t of await tenantIndexes.largeTenants(deps.tenantIndexMinChunks)) {
      if (t.index === 'none') {
        const name = await tenantIndexes.build(t.tenantId);
        logger.info({ index: name }, 'rag: a large tenant got its own HNSW index');
        built++;
      } else if (t.index === 'invalid' && !reported.has(t.tenantId)) {
        reported.add(t.tenantId);
        logger.warn(
          { index: tenantIndexName(t.tenantId) },
          'rag: a tenant HNSW index is not valid: being built by another copy, or a failed build to DROP INDEX so the next pass rebuilds it',
        );
      }
    }
    return built;
  };

  const once = async () => {
    const jobs = await documents.resumeAbandoned();
    const purged = await answers.purgeExpired();
    const indexed = await indexLargeTenants();
    if (jobs.resumed + jobs.failed + purged + indexed > 0)
      logger.info({ ...jobs, purged_cache_answers: purged, tenant_indexes_built: indexed }, 'rag maintenance');
    return { ...jobs, purged, indexed };
  };
  // One pass at a time in this process.
  let pass: ReturnType<typeof once> | undefined;
  const run = () => (pass ??= once().finally(() => (pass = undefined)));
  const sweep = async () => {
    await pass?.catch(() => {});
    return run();
  };
  const tick = () => {
    if (!pass)
      run().catch((err: unknown) =>
        logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'rag maintenance failed; next pass retries',
        ),
      );
  };
  tick();
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();
  return {
    sweep,
    async stop() {
      clearInterval(timer);
      await pass?.catch(() => {});
      await documents.settle();
    },
  };
}
