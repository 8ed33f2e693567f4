// Runs scans for schedules (schedule.service.ts): on each `tick` every due schedule is claimed
// (moving its due time on first, so two replicas never run one due schedule twice) and scanned
// as the scanner itself; an event (`config.changed`, `ingestion.completed`) makes the schedules
// listening to it due now and ticks at once. A burst of events before the tick is one scan. The
// clock is injected; `stop` refuses new ticks and waits for the one running, so a stopping
// service never leaves a scan half-recorded.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { SqlExecutor } from '../../platform/db/sql';
import { DomainError } from '../../platform/errors/domain-errors';
import type { Logger } from '../../platform/logging/logger';
import type { ScanService } from './scan.service';
import { scheduleStore } from './schedule.store';
import type { ScanEventTrigger, ScanSchedule } from './scanner.types';

/** Who a scheduled scan is recorded as (`requested_by`, the audit actor). */
export const SCHEDULER_ACTOR = 'compliance-scanner-scheduler';

const BATCH = 100;

export class ScanScheduler {
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly sql: SqlExecutor,
    private readonly scans: Pick<ScanService, 'run'>,
    private readonly now: () => Date,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** Runs every due schedule once; returns how many scans were started. A tick during a tick runs after it. */
  tick(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runDue().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.tick();
      }
    });
    return this.running;
  }

  /** An event for a tenant (null: the platform's, every tenant): its listening schedules become due, then a tick. */
  async onEvent(event: ScanEventTrigger, tenantId: string | null): Promise<number> {
    if (this.stopped) return 0;
    const due = await scheduleStore.trigger(this.sql, tenantId, event, this.now());
    if (due > 0) await this.tick();
    return due;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => undefined);
  }

  private async runDue(): Promise<number> {
    let started = 0;
    const due = await scheduleStore.due(this.sql, this.now(), BATCH);
    for (const key of due) {
      if (this.stopped) break;
      const schedule = await scheduleStore.get(this.sql, key.tenantId, key.id);
      // Read again after the list: another replica may have claimed it since (its due time moved
      // on). Claiming that new due time would run the same due schedule a second time.
      if (!schedule?.dueAt || schedule.dueAt.getTime() > this.now().getTime()) continue;
      if (await this.runOne(schedule)) started++;
    }
    return started;
  }

  private async runOne(s: ScanSchedule): Promise<boolean> {
    const at = this.now();
    // The next run counts from now, not from the missed time: a scanner that was down does not
    // fire every missed interval at once.
    const next = s.everySeconds === null ? null : new Date(at.getTime() + s.everySeconds * 1000);
    if (!(await scheduleStore.claim(this.sql, s.tenantId, s, next))) return false;
    const trigger = s.dueTrigger ?? 'schedule';
    let scanId: string | null = null;
    let error: string | null = null;
    try {
      const scan = await this.scans.run(schedulerCaller(s.tenantId), {
        targetId: s.targetId,
        packId: s.packId,
        trigger,
        scheduleId: s.id,
      });
      scanId = scan.id;
    } catch (err) {
      // A domain error (the pack withdrawn, the target unreadable) is the schedule's news, kept on
      // it; anything else is ours and logged too. The schedule stays: the next run may succeed.
      error = err instanceof DomainError ? err.message : 'the scan failed';
      if (!(err instanceof DomainError))
        this.logger.warn({ scheduleId: s.id, tenantId: s.tenantId, err }, 'scheduled scan failed');
    }
    await scheduleStore.recordRun(this.sql, s.tenantId, s.id, { at, scanId, error });
    return true;
  }
}

function schedulerCaller(tenantId: string): Caller {
  return {
    auth: { username: SCHEDULER_ACTOR, tenantId, roles: [], scopes: ['read', 'write'], isService: true },
    correlationId: randomUUID(),
  };
}
