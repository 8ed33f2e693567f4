// The notice relay: publishes the rows of `notice_outbox` (written by producers in the same
// transaction as their change) on the event bus, then marks them published. A process killed
// between a commit and the publish leaves the row unpublished, and the next pass of any relay
// (this process restarted, or another) publishes it. Delivery is therefore at least once: a relay
// killed after publishing but before its mark committed publishes again, and consumers
// deduplicate by the envelope's id (platform/events/notice-dedupe.ts).
//
// Several relays, in one process or many, share the table through `FOR UPDATE SKIP LOCKED`
// (notice.store.ts); each (tenant, subject) is published in the order its rows were written, and
// a failing row holds back its subject's later rows (retried with exponential backoff), never
// other subjects'.
//
// One path (issue 26): before publishing, each claimed notice is appended to the events backbone
// (its (tenant, topic) stream, platform/events/backbone/notice-append.ts) in the claim's own
// transaction, so it enters the durable log exactly once, with the outbox's mark. The bus publish
// that follows is the live wake-up of the notice's old subscribers; after the commit, each stream
// the pass appended to gets one `events.event_published` (its highest new position), which wakes
// the events service's live feeds and the durable consumers (platform/events/backbone/durable-consumer.ts).
import { continueTrace, tracingStarted } from '../telemetry/trace-context';
import { EVENTS_EVENT_PUBLISHED } from '../contracts/events.events';
import type { Database } from '../db/database';
import { appendNotices, type BackboneStoreFactory } from '../events/backbone/notice-append';
import type { EventRecord } from '../events/backbone/backbone.types';
import { ensurePlatformTopics } from '../events/backbone/platform-topics';
import type { EventBus } from '../events/event-bus';
import type { Logger } from '../logging/logger';
import { backoffDelay } from './outbox-relay';
import { sharedDueProbe } from './notice-due-probe';
import { createNoticeStore, type NoticeRow, type NoticeStore } from './notice.store';

export interface NoticeRelayOptions {
  db: Pick<Database, 'sql' | 'kind'>;
  bus: Pick<EventBus, 'publish'>;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** Only rows of these producing services; all when absent. */
  services?: string[];
  /**
   * Idle wait between polls (rows of other, or dead, processes). Relays of named services over one
   * database share the idle poll's read (notice-due-probe.ts): a row waits up to about twice this.
   */
  pollMs?: number;
  /** Rows per pass; a full pass runs again at once. */
  batch?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** No pass before this delay (NOTICE_RELAY_START_DELAY_MS): the kill test holds notices pending with it. */
  startDelayMs?: number;
  /** Published rows older than this are deleted; default 7 days. */
  retainPublishedMs?: number;
  store?: NoticeStore;
  /**
   * The events backbone the notices are appended to: on by default; `false` leaves them out of it
   * (a relay over a database without the events tables), a factory gives the store with its hooks.
   */
  backbone?: false | { store?: BackboneStoreFactory };
}

export interface NoticeRelay {
  /** Notices were just committed here: relay soon. */
  wake(): void;
  /** Runs one pass now; resolves with the number of notices published. */
  runOnce(): Promise<number>;
  /** Resolves once a pass started after the call found nothing more to publish (tests, drain). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

const keyOf = (r: NoticeRow) => `${r.tenant_id}\u0000${r.subject}`;

export function startNoticeRelay(options: NoticeRelayOptions): NoticeRelay {
  const store = options.store ?? createNoticeStore(options.db);
  const services = options.services && options.services.length > 0 ? options.services : null;
  const pollMs = options.pollMs ?? 250;
  const batch = options.batch ?? 500;
  const backoff = options.backoff ?? { baseMs: 200, maxMs: 60_000 };
  const retainMs = options.retainPublishedMs ?? 7 * 24 * 3600_000;
  const log = options.logger;
  let lastPrune = 0;
  let stopped = false;
  let started = !(options.startDelayMs && options.startDelayMs > 0);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let idleWaiters: (() => void)[] = [];
  // Set by a wake-up (a commit here, a caller, a full pass): the next pass claims at once. A pass
  // of the idle poll alone first asks whether anything is due, in one cheap read: ten services'
  // relays polling four times a second were ~120 statements and 40 transactions a second.
  let nudged = true;

  const backbone = options.backbone === false ? null : (options.backbone ?? {});
  // The idle poll's read, shared with the process's other relays (with the default store only:
  // a store given in is asked itself).
  const probe = !options.store && services ? sharedDueProbe(options.db.sql, services) : null;
  const hasDue = () => (probe && services ? probe.hasDue(services, pollMs) : store.hasDue(services));

  /**
   * After the commit: the pass's stored events wake the live feeds and durable consumers of their
   * streams, one `events.event_published` per (tenant, topic) with the stream's highest new
   * position. Every reader of that notice treats it as a wake-up and reads its stream after its
   * own position (pull-on-notify.ts, durable-consumer.ts), so one per stream wakes them as one
   * per event did; it was a bus message per notice, delivered to and checked by every listening
   * process (docs/decisions.md, "Validation speed").
   */
  function announce(events: EventRecord[]): void {
    const heads = new Map<string, EventRecord>();
    for (const e of events) {
      const key = `${e.tenantId}\u0000${e.topic}`;
      const head = heads.get(key);
      if (!head || e.position > head.position) heads.set(key, e);
    }
    for (const e of heads.values()) {
      options.bus
        .publish(EVENTS_EVENT_PUBLISHED.topic, { tenant_id: e.tenantId, topic: e.topic, position: e.position })
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'events.event_published wake-up failed'));
    }
  }

  async function pass(): Promise<{ published: number; full: boolean }> {
    if (Date.now() - lastPrune >= 3600_000) {
      lastPrune = Date.now();
      const pruned = await store.prunePublished(services, new Date(Date.now() - retainMs));
      if (pruned > 0) log.info({ pruned }, 'pruned published notices');
    }
    const nudge = nudged;
    nudged = false;
    if (!nudge && !(await hasDue())) return { published: 0, full: false };
    // The streams' topics must be readable by name (the events service may not have started yet).
    if (backbone) await ensurePlatformTopics(options.db.sql);
    let appended: EventRecord[] = [];
    const outcome = await store.claim(services, batch, async (claimed) => {
      if (backbone && claimed.rows.length > 0) {
        appended = await appendNotices(
          claimed.tx,
          claimed.rows.map((r) => ({ topic: r.topic, envelope: r.envelope })),
          backbone.store,
        );
      }
      // Subjects in parallel, each subject's rows one after another in id order.
      const bySubject = new Map<string, NoticeRow[]>();
      for (const r of claimed.rows) {
        const list = bySubject.get(keyOf(r));
        if (list) list.push(r);
        else bySubject.set(keyOf(r), [r]);
      }
      const published: string[] = [];
      // Without tracing there is no span to continue: the publish goes straight to the bus (the
      // span machinery was ~10% of the relay's CPU per notice with nothing recorded).
      const traced = tracingStarted();
      await Promise.all(
        [...bySubject.values()].map(async (rows) => {
          for (const row of rows) {
            try {
              if (!traced) await options.bus.publish(row.topic, row.envelope);
              else
                await continueTrace(
                  row.envelope.traceparent,
                  `publish ${row.topic}`,
                  { 'messaging.message.id': row.envelope.id },
                  () => options.bus.publish(row.topic, row.envelope),
                );
              published.push(row.id);
            } catch (err) {
              const delay = backoffDelay(row.attempts, backoff);
              await claimed.markFailed(row.id, delay, (err as Error).message);
              log.warn(
                { noticeId: row.envelope.id, topic: row.topic, retryInMs: delay, err: (err as Error).message },
                'publishing a notice failed: its subject waits for the retry',
              );
              return; // later rows of this subject stay behind it
            }
          }
        }),
      );
      await claimed.markPublished(published);
      return { published: published.length, full: claimed.rows.length === batch };
    });
    announce(appended);
    return outcome;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      started = true;
      if (!stopped) void runOnce();
    }, ms);
    // The service's server keeps the process alive; a relay left running must not.
    timer.unref();
  }

  async function loop(): Promise<number> {
    let total = 0;
    do {
      again = false;
      try {
        const p = await pass();
        total += p.published;
        if (p.full) again = nudged = true;
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'notice relay pass failed');
        schedule(backoff.baseMs);
        return total;
      }
    } while (again && !stopped);
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
    schedule(pollMs);
    return total;
  }

  function runOnce(): Promise<number> {
    if (running) {
      // A pass in flight: the pass after it (again) claims without asking first.
      nudged = true;
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = undefined;
      if (again && !stopped) wake();
    });
    return running;
  }

  function wake(): void {
    if (stopped || !started) return;
    nudged = true;
    void runOnce();
  }

  schedule(started ? 0 : options.startDelayMs!);

  return {
    wake,
    runOnce() {
      nudged = true;
      return runOnce();
    },
    flush() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        again = true;
        if (!running) wake();
        if (!started || stopped) resolve();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => 0);
      for (const w of idleWaiters) w();
      idleWaiters = [];
    },
  };
}
