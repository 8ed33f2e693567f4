// Runs scheduled pulls: every tick (INGESTION_SCHEDULER_TICK_MS) it reads which pipelines with a
// pulled source (rest_pull, sftp) have `schedule.interval_seconds`, and pulls those that are due: a
// pipeline this process has not pulled yet at once, then every interval. One pull at a time per
// process, so a slow source never piles up runs. Several copies of the service may pull the same
// source; the content hash makes the second a no-op (the completed batch is answered). `stop()`
// ends the timer and waits for the pull in flight: a clean stop, nothing cut mid-chunk by us.
import type { Logger } from '../../platform/logging/logger';
import type { PipelineStore } from './pipeline.store';
import { PULLED_KINDS, type SourcePuller } from './source-puller';

export class PullScheduler {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** pipeline id + version -> when it was last pulled here (a new version is pulled at once). */
  private readonly lastRun = new Map<string, number>();

  constructor(
    private readonly deps: {
      store: PipelineStore;
      puller: SourcePuller;
      tickMs: number;
      logger: Pick<Logger, 'warn' | 'info'>;
      now?: () => number;
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
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: pulls every due pipeline in turn (exported for tests through the class). */
  async tick(): Promise<void> {
    const now = this.deps.now ?? Date.now;
    let due;
    try {
      due = await this.deps.store.scheduled(PULLED_KINDS, 10_000);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'ingestion: the schedule could not be read');
      return;
    }
    for (const p of due) {
      if (this.stopped) return;
      const key = `${p.id}:${p.version}`;
      const last = this.lastRun.get(key);
      if (last !== undefined && now() - last < p.intervalSeconds * 1000) continue;
      this.lastRun.set(key, now());
      try {
        const batches = await this.deps.puller.pullScheduled(p.tenantId, p.id);
        this.deps.logger.info(
          { tenantId: p.tenantId, pipelineId: p.id, batches: batches.map((b) => b.status) },
          'ingestion: scheduled pull',
        );
      } catch (err) {
        // The batch (if one began) records its failure; a source that could not be reached is logged.
        this.deps.logger.warn(
          { tenantId: p.tenantId, pipelineId: p.id, err: (err as Error).message },
          'ingestion: a scheduled pull failed',
        );
      }
    }
  }
}
