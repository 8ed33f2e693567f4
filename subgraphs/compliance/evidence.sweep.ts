// The periodic sweep of evidence still without its ledger entry: a revision whose ledger append
// failed (the ledger was down) keeps an empty entry until something appends it again. Redeliveries,
// proofs and reports do so for what they touch; this timer does it for the rest, every
// COMPLIANCE_LEDGER_SWEEP_SECONDS (0 turns it off), so evidence nobody reads still becomes
// provable. Each pass takes up to 100 tenants and up to 100 revisions of each (`recordPending`);
// the appends carry the revision's idempotency key, so a pass that races another process's (or
// the intake's own append) adds no second entry. Passes never overlap: the next is scheduled when
// one ends, and `stop` waits for the one under way.
import type { SqlExecutor } from '../../platform/db/sql';
import type { Logger } from '../../platform/logging/logger';
import type { EvidenceService } from './evidence.service';
import type { EvidenceStore } from './evidence.store';

const TENANTS_PER_PASS = 100;

export interface LedgerSweep {
  /** One pass now (what the timer runs): how many revisions it tried to append. */
  runOnce(): Promise<number>;
  start(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export function ledgerSweep(
  sql: SqlExecutor,
  store: Pick<EvidenceStore, 'tenantsWithUnrecorded'>,
  evidence: Pick<EvidenceService, 'recordPending'>,
  options: { intervalMs: number; logger: Pick<Logger, 'warn' | 'info'> },
): LedgerSweep {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  /** Set by `stop`: a pass under way ends after the tenant it is on. */
  let halting = false;
  const runOnce = async () => {
    let tried = 0;
    for (const tenantId of await store.tenantsWithUnrecorded(sql, TENANTS_PER_PASS)) {
      if (halting) break;
      tried += await evidence.recordPending(tenantId);
    }
    if (tried > 0) options.logger.info({ revisions: tried }, 'compliance: evidence swept into the ledger');
    return tried;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce()
        .catch((err: unknown) =>
          options.logger.warn(
            { err: (err as Error).message },
            'compliance: ledger sweep failed; retried next interval',
          ),
        )
        .finally(schedule);
    }, options.intervalMs);
    timer.unref();
  };
  return {
    runOnce,
    start() {
      if (options.intervalMs <= 0 || !stopped) return;
      stopped = false;
      halting = false;
      schedule();
    },
    async stop() {
      stopped = true;
      halting = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
