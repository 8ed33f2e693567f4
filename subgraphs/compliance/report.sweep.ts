// The sweep of report generations a crash cut short. Generating commits the report's snapshot
// (status `generating`), then takes one ledger checkpoint, then marks it `generated`; a process
// that dies between the two leaves a `generating` report that readers never see and nothing
// would ever finish. Such a report is DISCARDED, exactly as a generation whose checkpoint fails
// is (report.service.ts): its caller never got it (the request failed with the process), no
// ledger entry or audit event names it, and finishing it now would hand its generator a report
// they probably generated again after the error. Discarding keeps one rule, "nothing
// half-applied", for both ways a generation can stop.
//
// A report counts as cut once it has been `generating` for COMPLIANCE_REPORT_GENERATING_TIMEOUT_SECONDS
// (900): a live generation is past its snapshot by then (the snapshot commits as it ends), and
// the checkpoint and the final update take seconds. Should one still be running, its final
// update finds the report gone and answers 503 "generate it again" (the row is locked and checked
// before it is removed, so the two never both win). Every COMPLIANCE_REPORT_SWEEP_SECONDS (300; 0
// off), up to 100 reports a pass, each in its own transaction; passes never overlap, and `stop`
// waits for the one under way.
import type { SqlExecutor } from '../../platform/db/sql';
import type { Logger } from '../../platform/logging/logger';
import type { ReportStore } from './report.store';

const REPORTS_PER_PASS = 100;

export interface ReportSweep {
  /** One pass now (what the timer runs): the reports it discarded. */
  runOnce(): Promise<{ tenantId: string; id: string }[]>;
  start(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

export function reportSweep(
  sql: SqlExecutor,
  store: Pick<ReportStore, 'stalledGenerations' | 'discardStalled'>,
  options: {
    intervalMs: number;
    /** How long a report may stay `generating` before it counts as cut. */
    timeoutMs: number;
    logger: Pick<Logger, 'warn'>;
    now?: () => Date;
  },
): ReportSweep {
  const now = options.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  const runOnce = async () => {
    const before = new Date(now().getTime() - options.timeoutMs);
    const discarded: { tenantId: string; id: string }[] = [];
    for (const r of await store.stalledGenerations(sql, before, REPORTS_PER_PASS)) {
      if (await sql.transaction((tx) => store.discardStalled(tx, r.tenantId, r.id, before))) discarded.push(r);
    }
    if (discarded.length > 0)
      options.logger.warn(
        { reports: discarded.map((r) => `${r.tenantId}/${r.id}`) },
        'compliance: report generations cut short were discarded (generate them again)',
      );
    return discarded;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce()
        .catch((err: unknown) =>
          options.logger.warn(
            { err: (err as Error).message },
            'compliance: report sweep failed; retried next interval',
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
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
