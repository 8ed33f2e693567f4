// The live feed from committed rows (the outbox pattern, with the ledger's own chain as the
// outbox): `ledger.event_appended` notices are published from events already committed, after a
// persisted mark per tenant (ledger_notice_marks), never from memory after a commit. So an event
// committed just before a kill -9 is still announced (by the next pass of any ledger process), and
// a failed publish is retried (the mark only moves after the bus accepted every notice of the
// pass) rather than logged and forgotten. Delivery is at least once: subscribers read their chain
// after the last seq they delivered (pull-on-notify), which drops duplicates by sequence.
//
// One ledger process relays at a time (a transaction-scoped advisory lock); each process wakes
// its relay after its own commits and polls for everyone else's, so a process that dies holding
// nothing back: the lock goes with its connection.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import { LEDGER_EVENT_APPENDED } from '../../platform/contracts/ledger.events';
import { contractPublisher } from '../../platform/events/contract-bus';
import type { AppendedNotice } from './ledger.subscriptions';

/** pg_try_advisory_xact_lock key of the relay ("ledger-n" in ASCII). */
export const NOTICE_RELAY_LOCK = 0x6c65646765722d6en;

export interface NoticeRelayOptions {
  sql: SqlExecutor;
  bus: EventBus;
  logger: Pick<Logger, 'warn' | 'info'>;
  /** How often committed events of other (or dead) processes are looked for. */
  pollMs?: number;
  /** Notices per pass (a pass that fills it runs again at once). */
  batch?: number;
  /**
   * How long a commit's wake-up waits for more commits before a pass (default 25 ms). Under load a
   * pass per commit was as many statements as the appends themselves (issue 35); notices arrive
   * up to this much later. 0: a pass at once.
   */
  lingerMs?: number;
  /** First retry delay after a failed pass; doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface NoticeRelay {
  /** Events were just committed here: relay soon. */
  wake(): void;
  /** Resolves when nothing committed before the call is left unpublished (tests, drain). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

type Pass = { published: number; full: boolean; locked: boolean };

/** One pass: publishes committed events past the marks, then moves the marks, in one transaction. */
export async function relayNotices(sql: SqlExecutor, bus: EventBus, batch: number): Promise<Pass> {
  return sql.transaction(async (tx: SqlQuery) => {
    const lock = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS ok', [
      NOTICE_RELAY_LOCK.toString(),
    ]);
    if (!lock.rows[0]?.ok) return { published: 0, full: false, locked: false };
    const rows = await tx.query<{ id: string; tenant_id: string; seq: string; event_type: string }>(
      `SELECT e.id::text AS id, e.tenant_id, e.seq::text AS seq, e.event_type
         FROM (SELECT h.tenant_id, COALESCE(m.published_seq, 0) AS published
                 FROM ledger_chain_heads h LEFT JOIN ledger_notice_marks m ON m.tenant_id = h.tenant_id
                WHERE h.last_seq > COALESCE(m.published_seq, 0)
                LIMIT $1) pending
         JOIN ledger_events e ON e.tenant_id = pending.tenant_id AND e.seq > pending.published
        ORDER BY e.tenant_id, e.seq
        LIMIT $1`,
      [batch],
    );
    if (rows.rows.length === 0) return { published: 0, full: false, locked: true };
    // One notice per (tenant, event type) and pass, naming the pass's latest event of that type
    // (issue 35): a notice only wakes subscriptions, which read the chain after the last seq they
    // delivered, so one per event was a bus round trip per append that told them nothing more.
    // Rows come in (tenant, seq) order: the last one of each pair is its latest.
    const latest = new Map<string, AppendedNotice>();
    const marks = new Map<string, number>();
    for (const r of rows.rows) {
      const seq = Number(r.seq);
      latest.set(`${r.tenant_id}\u0000${r.event_type}`, {
        id: r.id,
        tenant_id: r.tenant_id,
        seq,
        event_type: r.event_type,
      });
      marks.set(r.tenant_id, seq);
    }
    // Any failure throws: the transaction rolls back and the marks stay where they were.
    await Promise.all([...latest.values()].map((n) => contractPublisher(bus).publish(LEDGER_EVENT_APPENDED, n)));
    await tx.query(
      `INSERT INTO ledger_notice_marks (tenant_id, published_seq)
       SELECT * FROM unnest($1::varchar[], $2::bigint[])
       ON CONFLICT (tenant_id) DO UPDATE SET published_seq = GREATEST(ledger_notice_marks.published_seq, EXCLUDED.published_seq)`,
      [[...marks.keys()], [...marks.values()].map(String)],
    );
    return { published: rows.rows.length, full: rows.rows.length === batch, locked: true };
  });
}

/**
 * Whether any tenant's chain is past its mark: one autocommit read that the idle poll makes
 * instead of a pass's BEGIN, lock, SELECT and COMMIT (issue 35: a poll four times a second).
 */
export async function noticesPending(sql: SqlQuery): Promise<boolean> {
  const res = await sql.query<{ pending: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ledger_chain_heads h LEFT JOIN ledger_notice_marks m ON m.tenant_id = h.tenant_id
                     WHERE h.last_seq > COALESCE(m.published_seq, 0)) AS pending`,
    [],
    { prepareAs: 'ledger_notices_pending' },
  );
  return res.rows[0]?.pending === true;
}

export function startNoticeRelay(options: NoticeRelayOptions): NoticeRelay {
  const { sql, bus, logger } = options;
  const pollMs = options.pollMs ?? 250;
  const batch = options.batch ?? 1000;
  const baseBackoff = options.backoffMs ?? 100;
  const maxBackoff = options.maxBackoffMs ?? 5000;
  const lingerMs = options.lingerMs ?? 25;
  let backoff = baseBackoff;
  let running: Promise<void> | undefined;
  /** Run another pass as soon as this one ends (a full pass, or a flush during a pass). */
  let again = false;
  /** Commits happened during a pass: relay them after the linger. */
  let committedDuringPass = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  /** Resolved by the next pass that finds nothing left (or holds no lock while another relays). */
  let idleWaiters: (() => void)[] = [];

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      pollPass();
    }, ms);
  };

  /** The timer's pass: only when something is pending (or a flush waits); a failed read passes anyway. */
  function pollPass(): void {
    if (stopped || running || idleWaiters.length > 0) return passNow();
    noticesPending(sql).then(
      (pending) => (pending ? passNow() : schedule(pollMs)),
      () => passNow(),
    );
  }

  const loop = async () => {
    do {
      again = false;
      let pass: Pass;
      try {
        pass = await relayNotices(sql, bus, batch);
        backoff = baseBackoff;
      } catch (err) {
        logger.warn({ err, retryInMs: backoff }, 'publishing ledger notices failed: retrying from the last mark');
        // Wakes meanwhile wait for the retry: it covers their events too.
        again = false;
        schedule(backoff);
        backoff = Math.min(backoff * 2, maxBackoff);
        return;
      }
      if (pass.full) again = true;
      else if (!pass.locked) {
        // Another process is relaying; what we just committed may be past its reading: look again soon.
        schedule(Math.min(20, pollMs));
        return;
      } else if (!again) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const w of waiters) w();
      }
    } while (again && !stopped);
    schedule(pollMs);
  };

  /** A pass now, or right after the one under way. */
  function passNow(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (lingerTimer) clearTimeout(lingerTimer);
    lingerTimer = undefined;
    running = loop().finally(() => {
      running = undefined;
      if (stopped) return;
      if (again) passNow();
      else if (committedDuringPass) wake();
    });
  }

  /** Events were committed here: a pass after the linger, gathering the commits made meanwhile. */
  function wake(): void {
    if (stopped) return;
    if (running) {
      committedDuringPass = true;
      return;
    }
    committedDuringPass = false;
    if (lingerMs <= 0) return passNow();
    lingerTimer ??= setTimeout(() => {
      lingerTimer = undefined;
      passNow();
    }, lingerMs);
  }

  passNow();
  return {
    wake,
    flush() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        passNow();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (lingerTimer) clearTimeout(lingerTimer);
      await running;
      for (const w of idleWaiters) w();
      idleWaiters = [];
    },
  };
}
