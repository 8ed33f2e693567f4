// Keeps one replication runner per active postgres_cdc pipeline (cdc.connector.ts): every tick
// (INGESTION_SCHEDULER_TICK_MS) it starts runners for new pipelines, restarts one whose pipeline
// has a new version, and for a pipeline deleted (here or by another copy, in the last 7 days)
// stops its runner and drops its slot and publication, so a deleted pipeline leaves nothing that
// holds the source's WAL. A runner that fails to start is retried on a later tick. `stop()` stops
// every runner cleanly (pending changes are not acknowledged, so the slot sends them again).
import type { Logger } from '../../platform/logging/logger';
import type { Env } from '../../platform/service';
import type { BatchService } from './batch.service';
import { CdcRunner, dropReplication } from './cdc.connector';
import type { PipelineStore } from './pipeline.store';
import type { PipelineDefinition } from './pipeline.types';
import { resolveSecret } from './secret-ref';

export class CdcManager {
  private readonly runners = new Map<string, CdcRunner>();
  private readonly dropped = new Set<string>();
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly deps: {
      store: PipelineStore;
      batches: BatchService;
      env: Env;
      secretRoots: readonly string[];
      tickMs: number;
      flushMs: number;
      heartbeatMs: number;
      spoolDir?: string;
      logger: Pick<Logger, 'warn' | 'info'>;
    },
  ) {}

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.deps.tickMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all([...this.runners.values()].map((r) => r.stop()));
    this.runners.clear();
  }

  async tick(): Promise<void> {
    let refs;
    try {
      refs = await this.deps.store.ofKinds(['postgres_cdc'], 7, 10_000);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'ingestion: replication pipelines could not be read');
      return;
    }
    for (const ref of refs) {
      if (this.stopped) return;
      const runner = this.runners.get(ref.id);
      try {
        if (ref.status === 'deleted') {
          if (this.dropped.has(ref.id)) continue;
          await runner?.stop();
          this.runners.delete(ref.id);
          const version = await this.deps.store.version(ref.tenantId, ref.id, ref.version);
          if (version) await dropReplication(version.definition, ref.id, this.password(version.definition));
          this.dropped.add(ref.id);
          this.deps.logger.info({ pipelineId: ref.id }, 'ingestion: replication slot dropped with its pipeline');
          continue;
        }
        if (runner && runner.pipeline.version === ref.version) continue;
        await runner?.stop();
        this.runners.delete(ref.id);
        const pipeline = await this.deps.store.get(ref.tenantId, ref.id);
        if (!pipeline) continue;
        const next = new CdcRunner(
          pipeline,
          {
            ingest: (p, source, name) =>
              this.deps.batches.ingest({ correlationId: `cdc-${p.id}` }, p.tenantId, p, source, name),
            recent: (p) => this.deps.batches.recent(p.tenantId, p.id, 50),
          },
          {
            password: this.password(pipeline.definition),
            maxBytes: this.deps.batches.limits.maxBytes,
            spoolDir: this.deps.spoolDir,
            flushMs: this.deps.flushMs,
            heartbeatMs: this.deps.heartbeatMs,
            logger: this.deps.logger,
          },
        );
        this.runners.set(ref.id, next);
        await next.start().catch(async (err: Error) => {
          this.runners.delete(ref.id);
          await next.stop();
          throw err;
        });
      } catch (err) {
        this.deps.logger.warn(
          { pipelineId: ref.id, err: (err as Error).message },
          'ingestion: replication not running',
        );
      }
    }
  }

  private password(definition: PipelineDefinition): string | undefined {
    const ref = definition.source.password;
    return ref ? resolveSecret(ref, this.deps.env, this.deps.secretRoots, 'password') : undefined;
  }
}
