// The idle poll's question of every notice relay in a process, asked once for all of them. Each
// service runs its own relay (service-notices.ts), and each relay's idle poll asked "is anything of
// my service due?" four times a second: in `npm start`, ten relays made ~40 statements a second
// on the event loop every request shares (issue 35). Relays over the same database now share one
// answer per poll interval: the first relay to ask sends one statement for every service
// registered here, and the others read its answer until it is `maxAgeMs` old. A row left by another
// (or a dead) process therefore waits at most about two poll intervals instead of one; rows
// committed in this process wake their relay directly and never wait for the probe.
import type { SqlExecutor } from '../db/sql';

interface Probe {
  services: Set<string>;
  asked?: { at: number; due: Promise<ReadonlySet<string>> };
}

const probes = new WeakMap<SqlExecutor, Probe>();

export interface DueProbe {
  /** Whether any of these services' rows is due, by an answer at most `maxAgeMs` old. */
  hasDue(services: readonly string[], maxAgeMs: number): Promise<boolean>;
}

/** The probe of `sql`'s notice outbox, asking for `services` too from now on. */
export function sharedDueProbe(sql: SqlExecutor, services: readonly string[]): DueProbe {
  let probe = probes.get(sql);
  if (!probe) probes.set(sql, (probe = { services: new Set() }));
  for (const s of services) probe.services.add(s);
  const shared = probe;
  return {
    async hasDue(mine, maxAgeMs) {
      const now = Date.now();
      if (!shared.asked || now - shared.asked.at >= maxAgeMs) {
        const due = dueServices(sql, [...shared.services]);
        const asked = { at: now, due };
        shared.asked = asked;
        // A failed read is not an answer: the next relay asks again.
        due.catch(() => {
          if (shared.asked === asked) shared.asked = undefined;
        });
      }
      const due = await shared.asked.due;
      return mine.some((s) => due.has(s));
    },
  };
}

/**
 * The services with a due row. One EXISTS per service, each an index probe of the unpublished
 * rows by (service, id) that stops at the first due row, so a backlog costs nothing here.
 */
async function dueServices(sql: SqlExecutor, services: string[]): Promise<ReadonlySet<string>> {
  const res = await sql.query<{ service: string }>(
    `SELECT s.service FROM unnest($1::text[]) AS s(service)
      WHERE EXISTS (SELECT 1 FROM notice_outbox n
                     WHERE n.service = s.service AND n.published_at IS NULL AND n.next_attempt_at <= now())`,
    [services],
    { prepareAs: 'notice_due_services' },
  );
  return new Set(res.rows.map((r) => r.service));
}
