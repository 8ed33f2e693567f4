// The producer side of the notice outbox (`notice_outbox`, prisma/schema/notice-outbox.prisma):
// called with the client of the transaction that makes the change, so the notice commits or rolls
// back with it. The notice relay (notice-relay.ts) publishes it afterwards. One writer for Prisma
// and raw-SQL stores alike, as the audit outbox (outbox.writer.ts) has.
import type { Prisma } from '../../generated/prisma/client';
import type { EventContract, PayloadOf } from '../contracts/event-contract';
import { groupCommit } from '../db/group-commit';
import type { PrismaLike } from '../db/prisma-like';
import type { SqlQuery } from '../db/sql';
import { outboxInsert, type AuditEventInput } from './outbox.writer';
import { noticeEnvelope, type NoticeContext, type NoticeEnvelope } from './notice.envelope';

export interface NoticeWriter {
  /** Writes one notice; resolves with its envelope (its id is what consumers deduplicate by). */
  append<C extends EventContract>(contract: C, payload: PayloadOf<C>, ctx: NoticeContext): Promise<NoticeEnvelope>;
}

/** One notice ready to insert (for stores that batch, or write it in the same statement as their change). */
export interface PendingNotice {
  service: string;
  envelope: NoticeEnvelope;
}

export function pendingNotice<C extends EventContract>(
  service: string,
  contract: C,
  payload: PayloadOf<C>,
  ctx: NoticeContext,
): PendingNotice {
  return { service, envelope: noticeEnvelope(service, contract, payload, ctx) };
}

export function noticeRow(n: PendingNotice): Prisma.NoticeOutboxCreateManyInput {
  return {
    eventId: n.envelope.id,
    service: n.service,
    tenantId: n.envelope.tenantid,
    topic: n.envelope.type,
    subject: n.envelope.subject,
    envelope: n.envelope as unknown as Prisma.InputJsonObject,
  };
}

/** Writes with the given Prisma client: inside an interactive transaction, the notice commits with the change. */
export function noticeWriter(db: PrismaLike, service: string): NoticeWriter {
  return {
    async append(contract, payload, ctx) {
      const n = pendingNotice(service, contract, payload, ctx);
      await db.noticeOutbox.create({ data: noticeRow(n) });
      return n.envelope;
    },
  };
}

/**
 * The insert for raw-SQL stores: one multi-row `INSERT ... SELECT FROM json_to_recordset(...)`
 * whose parameter is numbered `$${first}`, so a store can append it to its own statement. The rows
 * travel as one JSON parameter, as the audit outbox's do (outbox.writer.ts, `outboxInsert`).
 */
export function noticeInsert(notices: readonly PendingNotice[], first = 1): { text: string; params: unknown[] } {
  return {
    text: `INSERT INTO notice_outbox (event_id, service, tenant_id, topic, subject, envelope)
SELECT n.event_id, n.service, n.tenant_id, n.topic, n.subject, n.envelope
  FROM json_to_recordset($${first}::json)
    AS n(event_id text, service text, tenant_id text, topic text, subject text, envelope jsonb)`,
    params: [
      JSON.stringify(
        notices.map((n) => ({
          event_id: n.envelope.id,
          service: n.service,
          tenant_id: n.envelope.tenantid,
          topic: n.envelope.type,
          subject: n.envelope.subject,
          envelope: n.envelope,
        })),
      ),
    ],
  };
}

/** Writes with the given raw-SQL client (`q`): inside its transaction, the notice commits with the change. */
export function sqlNoticeWriter(q: SqlQuery, service: string): NoticeWriter {
  return {
    async append(contract, payload, ctx) {
      const n = pendingNotice(service, contract, payload, ctx);
      await sqlInsertNotices(q, [n]);
      return n.envelope;
    },
  };
}

export async function sqlInsertNotices(q: SqlQuery, notices: readonly PendingNotice[]): Promise<void> {
  if (notices.length === 0) return;
  const { text, params } = noticeInsert(notices);
  await q.query(text, params);
}

/** An audit event and the notice that reports the same thing, committed together (or neither). */
export interface AuditedNoticeWriter {
  append(event: AuditEventInput, notice?: PendingNotice): Promise<void>;
}

/**
 * For records no other write belongs to (a validation run): concurrent appends are written
 * together (platform/db/group-commit.ts) as ONE statement, the notices' multi-row insert in a
 * data-modifying CTE ahead of the audit events' (atomic as any single statement, without
 * BEGIN/COMMIT round trips), and each append resolves once its own rows are committed. On
 * PostgreSQL up to `maxInFlight` groups are written at once on pooled connections.
 */
export function groupedAuditNoticeWriter(
  sql: SqlQuery,
  service: string,
  options: { maxBatch?: number; maxInFlight?: number } = {},
): AuditedNoticeWriter {
  const write = groupCommit<{ event: AuditEventInput; notice?: PendingNotice }>(
    (items) => {
      const notices = items.flatMap((i) => (i.notice ? [i.notice] : []));
      const events = items.map((i) => i.event);
      // Each form's text is the same for any group (its rows are one JSON parameter), so it is
      // prepared once per connection: PostgreSQL, on the same cores, skips its parse and plan.
      if (notices.length === 0) {
        const audit = outboxInsert(service, events);
        return sql.query(audit.text, audit.params, { prepareAs: 'outbox.audit-group' });
      }
      const n = noticeInsert(notices);
      const audit = outboxInsert(service, events, n.params.length + 1);
      return sql.query(`WITH notices AS (${n.text}\n  RETURNING 1)\n${audit.text}`, [...n.params, ...audit.params], {
        prepareAs: 'outbox.audit-notice-group',
      });
    },
    { maxBatch: options.maxBatch ?? 500, maxInFlight: options.maxInFlight ?? 1 },
  );
  return { append: (event, notice) => write({ event, notice }) };
}
