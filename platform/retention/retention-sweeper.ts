// The owning service's timer: every RETENTION_SWEEP_MINUTES (60; 0 turns it off) it runs a purge
// pass over each of its targets. Several processes of one service may sweep at once: a purge
// takes its rows with SKIP LOCKED and deletes what is there, so each audits only what it deleted.
import { readInt } from '../config/env';
import type { SqlExecutor } from '../db/sql';
import type { Logger } from '../logging/logger';
import type { ServiceDeps } from '../service';
import { runPurgePass, type PurgeOutcome, type PurgeTarget } from './purge-pass';

export interface RetentionSweeper {
  /** One pass over every target now (what the timer runs). */
  runOnce(now?: Date): Promise<PurgeOutcome[]>;
  start(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export function retentionSweeper(
  sql: SqlExecutor,
  targets: readonly PurgeTarget[],
  options: { intervalMs: number; logger: Pick<Logger, 'warn' | 'info'> },
): RetentionSweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = async (now?: Date) => {
    const outcomes: PurgeOutcome[] = [];
    for (const target of targets) outcomes.push(...(await runPurgePass(sql, target, { now })));
    const purged = outcomes.filter((o) => o.purged > 0);
    if (purged.length > 0)
      options.logger.info(
        { purged: purged.map((o) => ({ tenant: o.tenantId, type: o.recordType, n: o.purged })) },
        'retention purge',
      );
    return outcomes;
  };
  return {
    runOnce,
    start() {
      if (options.intervalMs <= 0 || timer) return;
      timer = setInterval(() => {
        running = runOnce().catch((err: unknown) =>
          options.logger.warn({ err: (err as Error).message }, 'retention sweep failed; retried next interval'),
        );
      }, options.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/** The sweeper of a service over its targets, at RETENTION_SWEEP_MINUTES. */
export function serviceRetention(
  deps: Pick<ServiceDeps, 'db' | 'env' | 'logger'>,
  targets: readonly PurgeTarget[],
): RetentionSweeper {
  const minutes = readInt(deps.env, 'RETENTION_SWEEP_MINUTES', 60, { min: 0, max: 10_080 });
  return retentionSweeper(deps.db.sql, targets, { intervalMs: minutes * 60_000, logger: deps.logger });
}
