// A durable consumer of the events backbone (issue 26): pulls a consumer group's messages with the
// store (`FOR UPDATE SKIP LOCKED`, so consumers of one group in any number of processes compete
// for them), runs the handler, acks on success and nacks on a throw: the message comes back after
// the group's backoff and, after `maxDeliveries`, goes to the dead-letter queue, where a poison
// message stops nothing else. A consumer that dies mid-handler holds a lease that expires after
// `ackTimeoutMs`; the message is then delivered again (at least once). Order is kept per
// (tenant, subject): the store hands out only the earliest open message of each key, so the
// messages of one pull may be handled concurrently.
//
// Without `tenantId` the group is the platform's and reads every tenant's stream of the topic
// (platform-group.store.ts); with it, the group is that tenant's own subscription
// (backbone.store.ts), the same a tenant creates through the events service's REST door.
//
// It wakes on `events.event_published` for its topic (published after each commit by the events
// service and by every notice relay) and polls every `pollMs` besides, so a lost wake-up (another
// process's in-memory bus) costs at most one poll. A platform group's poll first asks, in one
// read, whether a pull could lease anything, and pulls only then (or when its last pull is
// IDLE_PULL_MS old, which keeps the group's `seen_at` fresh): `npm start`'s dozen groups polling
// idle were ~50 statements a second on the event loop every request shares (issue 35). Events handled in this process are remembered
// by (tenant, id) (notice-dedupe.ts's SeenIds): a redelivery after a lost ack is acked unhandled.
import { EVENTS_EVENT_PUBLISHED } from '../../contracts/events.events';
import type { Database } from '../../db/database';
import type { Logger } from '../../logging/logger';
import { contractBus } from '../contract-bus';
import type { EventBus, Unsubscribe } from '../event-bus';
import { SeenIds } from '../notice-dedupe';
import { createEventsStore } from './backbone.store';
import type { EventRecord } from './backbone.types';
import {
  ackPlatformGroup,
  deletePlatformGroup,
  ensurePlatformGroup,
  idlePlatformGroups,
  nackPlatformGroup,
  platformGroupHasWork,
  pullPlatformGroup,
} from './platform-group.store';
import { ensurePlatformTopics } from './platform-topics';
import { eventConsumed } from '../../telemetry/domain-metrics';

/** An idle platform group pulls at least this often (its seen_at), whatever the probe says. */
const IDLE_PULL_MS = 60_000;

export interface Delivery {
  /** 1 on the first delivery, higher on redeliveries. */
  attempt: number;
  leaseId: string;
}

export type DurableHandler = (event: EventRecord, delivery: Delivery) => Promise<void> | void;

export interface ConsumeOptions {
  /** The consumer group (subscription) name: consumers sharing it share the work. */
  subscription: string;
  topic: string;
  handler: DurableHandler;
  /** One tenant's own subscription; absent: a platform group over every tenant's stream. */
  tenantId?: string;
  /** Deliveries before the dead-letter queue (default 5). */
  maxDeliveries?: number;
  /** First redelivery delay after a nack, doubled each attempt (default 1000 ms). */
  backoffMs?: number;
  /** How long a lease lasts before the message is handed out again (default 30 s). */
  ackTimeoutMs?: number;
  /** A new group starts with events published from now on (default) or at every stream's start. */
  from?: 'now' | 'start';
  /**
   * Every process its own group (a cache every process must hear): the group is named
   * `<subscription>@<instance>`, deleted when the consumer stops; one left by a process that died
   * is deleted by the next consumer of the subscription after `idleGroupMs` without a pull.
   */
  perProcess?: { instance: string; idleGroupMs?: number };
  /** Fallback poll when no wake-up arrives (default 1000 ms). */
  pollMs?: number;
  /** Messages per pull (default 20). */
  batch?: number;
  /** The wake-ups' bus; without one the consumer polls only. */
  bus?: Pick<EventBus, 'publish' | 'subscribe'>;
  logger: Pick<Logger, 'warn' | 'info'>;
}

export interface DurableConsumer {
  /** The group's name as stored. */
  readonly group: string;
  /** Pull now (tests, after a publish known to this process). */
  wake(): void;
  /** Resolves once a pull started after the call found nothing to do. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

interface GroupPort {
  ensure(): Promise<void>;
  /** Whether a pull could lease anything (a cheap read before an idle poll's pull); absent: always pull. */
  hasWork?(): Promise<boolean>;
  pull(max: number): Promise<{ leaseId: string; attempt: number; event: EventRecord }[]>;
  ack(leaseId: string): Promise<void>;
  nack(leaseId: string, error: string): Promise<'ready' | 'dead' | null>;
  remove(): Promise<void>;
}

type Db = Pick<Database, 'sql'>;

function platformGroup(db: Db, name: string, o: Required<Pick<ConsumeOptions, 'topic'>> & Settings): GroupPort {
  return {
    async ensure() {
      await ensurePlatformGroup(db.sql, { name, topic: o.topic, ...o.settings }, o.from);
    },
    hasWork: () => platformGroupHasWork(db.sql, name, o.topic),
    pull: (max) => pullPlatformGroup(db.sql, name, max),
    async ack(leaseId) {
      await ackPlatformGroup(db.sql, name, [leaseId]);
    },
    nack: (leaseId, error) => nackPlatformGroup(db.sql, name, leaseId, error),
    remove: () => deletePlatformGroup(db.sql, name),
  };
}

function tenantGroup(db: Db, tenantId: string, name: string, o: { topic: string } & Settings): GroupPort {
  const store = createEventsStore(db.sql);
  return {
    async ensure() {
      const position = o.from === 'start' ? 0 : await store.headPosition(tenantId, o.topic);
      await store.createSubscription({ tenantId, name, topic: o.topic, position, ...o.settings });
    },
    pull: (max) => store.pull(tenantId, name, max),
    async ack(leaseId) {
      await store.ack(tenantId, name, [leaseId]);
    },
    nack: (leaseId, error) => store.nack(tenantId, name, leaseId, error),
    async remove() {
      await store.deleteSubscription(tenantId, name);
    },
  };
}

interface Settings {
  settings: { maxDeliveries: number; ackTimeoutMs: number; backoffMs: number };
  from: 'now' | 'start';
}

/** Starts a consumer: its group exists (created if missing) when this resolves. */
export async function consume(db: Db, options: ConsumeOptions): Promise<DurableConsumer> {
  const log = options.logger;
  const pollMs = options.pollMs ?? 1000;
  const batch = options.batch ?? 20;
  const settings = {
    maxDeliveries: options.maxDeliveries ?? 5,
    ackTimeoutMs: options.ackTimeoutMs ?? 30_000,
    backoffMs: options.backoffMs ?? 1000,
  };
  const from = options.from ?? 'now';
  const group = options.perProcess ? `${options.subscription}@${options.perProcess.instance}` : options.subscription;
  const port =
    options.tenantId === undefined
      ? platformGroup(db, group, { topic: options.topic, settings, from })
      : tenantGroup(db, options.tenantId, group, { topic: options.topic, settings, from });

  await ensurePlatformTopics(db.sql);
  if (options.perProcess && options.tenantId === undefined) {
    const idleMs = options.perProcess.idleGroupMs ?? 24 * 3600_000;
    const pattern = `${options.subscription.replace(/[\\%_]/g, (c) => `\\${c}`)}@%`;
    for (const stale of await idlePlatformGroups(db.sql, pattern, new Date(Date.now() - idleMs))) {
      if (stale === group) continue;
      await deletePlatformGroup(db.sql, stale);
      log.info({ group: stale }, 'deleted the consumer group of a process gone');
    }
  }
  await port.ensure();

  const seen = new SeenIds();
  // A pull at least this often even when the probe finds nothing: it stamps the group's seen_at,
  // by which another process's consumer tells a live per-process group from a dead one's.
  const idlePullMs = Math.min(IDLE_PULL_MS, (options.perProcess?.idleGroupMs ?? Infinity) / 4);
  let lastPull = 0;
  // Set by a wake-up (the bus, a caller, a drain): the next pass pulls at once. The poll's own
  // passes (the timer) ask the probe first.
  let nudged = true;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let idleWaiters: (() => void)[] = [];

  async function handle(m: { leaseId: string; attempt: number; event: EventRecord }): Promise<void> {
    const key = `${m.event.tenantId}\u0000${m.event.id}`;
    if (seen.has(key)) {
      await port.ack(m.leaseId);
      return;
    }
    try {
      await options.handler(m.event, { attempt: m.attempt, leaseId: m.leaseId });
      eventConsumed(options.subscription, m.event.time); // events_consumer_lag_seconds
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      const state = await port.nack(m.leaseId, message);
      log.warn(
        { group, topic: options.topic, eventId: m.event.id, attempt: m.attempt, state, err: message },
        state === 'dead'
          ? 'consumer gave up on an event: dead-lettered'
          : 'consumer failed on an event: redelivery later',
      );
      return;
    }
    seen.first(key);
    await port.ack(m.leaseId);
  }

  /** An idle poll's question: nothing a pull could lease, and the last pull recent enough. */
  async function nothingToPull(): Promise<boolean> {
    if (!port.hasWork || Date.now() - lastPull >= idlePullMs) return false;
    return !(await port.hasWork());
  }

  async function loop(): Promise<void> {
    do {
      again = false;
      const nudge = nudged;
      nudged = false;
      try {
        if (!nudge && (await nothingToPull())) continue;
        for (;;) {
          if (stopped) return;
          lastPull = Date.now();
          const messages = await port.pull(batch);
          if (messages.length === 0) break;
          // One message per (tenant, subject) at a time (the store's rule): safe to run together.
          await Promise.all(messages.map(handle));
        }
      } catch (err) {
        log.warn({ group, err: (err as Error).message }, 'durable consumer pull failed; retrying');
        schedule(pollMs);
        return;
      }
    } while (again && !stopped);
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
    schedule(pollMs);
  }

  function wake(): void {
    nudged = true;
    pass();
  }

  function pass(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = loop().finally(() => {
      running = undefined;
      if (again && !stopped) wake();
    });
  }

  function schedule(ms: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      pass();
    }, ms);
    timer.unref();
  }

  let unsubscribe: Unsubscribe | undefined;
  if (options.bus) {
    unsubscribe = await contractBus(options.bus, log).subscribe(EVENTS_EVENT_PUBLISHED, (notice) => {
      if (notice.topic !== options.topic) return;
      if (options.tenantId !== undefined && notice.tenant_id !== options.tenantId) return;
      wake();
    });
  }
  wake();

  return {
    group,
    wake,
    drain() {
      return new Promise<void>((resolve) => {
        if (stopped) return resolve();
        idleWaiters.push(resolve);
        nudged = again = true;
        if (!running) wake();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await unsubscribe?.();
      await running?.catch(() => undefined);
      for (const w of idleWaiters) w();
      idleWaiters = [];
      if (options.perProcess) await port.remove().catch(() => undefined);
    },
  };
}
