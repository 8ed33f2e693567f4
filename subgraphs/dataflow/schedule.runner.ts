// The schedule trigger (issue 33): certified dataflow packs whose triggers include
// `{type: schedule, cron}` run on time, in their owner tenant. Every poll reads the registry's
// certified scheduled packs and, for each cron, the latest slot at or before now (croner, UTC);
// a slot is run once: its trigger key `schedule:<cron>@<slot>` is claimed like any other trigger,
// so several processes, or a tick that repeats a slot, start one run. Only the latest slot is run
// (a process down for three slots runs the third, not a backlog), and never one from before the
// pack version was certified. The clock is injected (tests move it), and stop() waits for the
// tick in flight, so a stopping service leaves no half-started work behind.
import { Cron } from 'croner';
import type { Logger } from '../../platform/logging/logger';
import type { DataflowPack } from './dataflow.types';

export interface ScheduledPack {
  tenantId: string;
  pack: DataflowPack;
  certifiedAt: Date | null;
}

export interface ScheduleDeps {
  /** The certified packs with a schedule trigger, each with its owner tenant. */
  scheduled(): Promise<ScheduledPack[]>;
  /** Runs the pack for one slot (idempotent per tenant, pack and key). */
  run(tenantId: string, pack: DataflowPack, triggerKey: string): Promise<unknown>;
  now(): Date;
  pollMs: number;
  logger: Pick<Logger, 'warn'>;
}

/** The latest time at or before `now` that `cron` names (UTC), or null for none (or a bad cron). */
export function latestSlot(cron: string, now: Date): Date | null {
  let job: Cron;
  try {
    job = new Cron(cron, { paused: true, timezone: 'UTC' });
  } catch {
    return null;
  }
  // croner answers runs strictly before the reference's whole second: one second on includes `now`'s.
  const [previous] = job.previousRuns(1, new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000));
  return previous ?? null;
}

export class ScheduleRunner {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  /** Slots already run by this process (saves a claim per tick; the claim is what guarantees once). */
  private readonly done = new Set<string>();

  constructor(private readonly deps: ScheduleDeps) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.inFlight = this.tick().then(
        () => undefined,
        (err: unknown) => this.deps.logger.warn({ err }, 'dataflow schedules: poll failed'),
      );
      void this.inFlight.finally(() => {
        this.inFlight = undefined;
        if (!this.stopped) this.timer = setTimeout(loop, this.deps.pollMs);
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  /** One pass: every due slot of every scheduled pack is run (once). Answers the keys it ran. */
  async tick(): Promise<string[]> {
    const now = this.deps.now();
    let packs: ScheduledPack[];
    try {
      packs = await this.deps.scheduled();
    } catch (err) {
      this.deps.logger.warn({ err }, 'dataflow schedules: the packs registry did not answer; next poll');
      return [];
    }
    const ran: string[] = [];
    for (const { tenantId, pack, certifiedAt } of packs) {
      for (const t of pack.triggers) {
        if (this.stopped) return ran;
        if (t.type !== 'schedule' || !t.cron) continue;
        const slot = latestSlot(t.cron, now);
        if (!slot || (certifiedAt && slot < certifiedAt)) continue;
        const key = `schedule:${t.cron}@${slot.toISOString()}`;
        const id = `${tenantId}\u0000${pack.metadata.pack_id}@${pack.metadata.version}\u0000${key}`;
        if (this.done.has(id)) continue;
        try {
          await this.deps.run(tenantId, pack, key);
          if (this.done.size > 10_000) this.done.clear();
          this.done.add(id);
          ran.push(key);
        } catch (err) {
          // A failure that may pass (the database away): tried again at the next poll, same key.
          this.deps.logger.warn({ err, pack: pack.metadata.pack_id, tenantId }, 'scheduled dataflow run failed');
        }
      }
    }
    return ran;
  }
}
