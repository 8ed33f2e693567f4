// Where a run's record goes: its `rule_execution` audit event into the outbox (the ledger's relay
// delivers it) and its `compliance.rule_execution` notice straight into the events backbone (the
// tenant's stream, where the compliance intake's durable consumer reads it), in ONE transaction,
// so neither exists without the other. Runs that arrive while a write is in flight share the next
// one (platform/db/group-commit.ts), and each run answers once its own rows are committed.
//
// Why not the notice outbox, as other producers do: a notice there was written, claimed, appended
// to the backbone, published and marked published by the notice relay, and that per-notice work was
// the largest cost of a run left (PostgreSQL 70-200 us of CPU a run, the service's main thread
// ~40 us, measured with the relay held off; docs/benchmarks.md, Speed pass, branch val round 5).
// Appended here, in the run's own transaction, a notice enters the backbone exactly once, when its
// run commits. The bus publish that follows the commit is the live wake-up the relay sent after
// its own: the notice itself on `compliance.rule_execution` (documented as at most once, best
// effort: docs/validation.md) and one `events.event_published` per stream with its new head, which
// wakes the durable consumers and live feeds as the relay's did.
import type { Database } from '../../platform/db/database';
import type { SqlQuery } from '../../platform/db/sql';
import { groupCommit } from '../../platform/db/group-commit';
import { EVENTS_EVENT_PUBLISHED } from '../../platform/contracts/events.events';
import { createEventsStore } from '../../platform/events/backbone/backbone.store';
import type { EventRecord } from '../../platform/events/backbone/backbone.types';
import { appendNotices } from '../../platform/events/backbone/notice-append';
import { ensurePlatformTopics } from '../../platform/events/backbone/platform-topics';
import { webhookQueueHooks } from '../../platform/events/backbone/webhook-queue.store';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { AuditedNoticeWriter, PendingNotice } from '../../platform/outbox/notice.writer';
import { outboxInsert, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { continueTrace, tracingStarted } from '../../platform/telemetry/trace-context';

export interface RunRecordWriterOptions {
  /** Groups written at once (PostgreSQL); 1 with one connection (PGlite). */
  maxInFlight?: number;
  maxBatch?: number;
}

interface RunRecord {
  event: AuditEventInput;
  notice?: PendingNotice;
}

/** The backbone's store as the notice relay uses it: a tenant's webhook endpoints get the notice queued in the same transaction. */
const backboneStore = (sql: Parameters<typeof createEventsStore>[0]) => createEventsStore(sql, webhookQueueHooks);

/** The group's tenants ($1) with an enabled webhook endpoint: webhook-queue.store.ts's first question. */
const LISTENING_TENANTS =
  'SELECT DISTINCT tenant_id FROM webhook_endpoints WHERE tenant_id = ANY($1::text[]) AND enabled';

export function runRecordWriter(
  db: Pick<Database, 'sql'>,
  bus: Pick<EventBus, 'publish'>,
  logger: Pick<Logger, 'warn'>,
  service: string,
  options: RunRecordWriterOptions = {},
): AuditedNoticeWriter {
  // The group's audit insert: its text is the same for any group (the rows are one JSON parameter),
  // so it is prepared once per pooled connection.
  const insertAudit = (q: SqlQuery, events: AuditEventInput[]) => {
    const audit = outboxInsert(service, events);
    return q.query(audit.text, audit.params, { prepareAs: 'validation_run_audit' });
  };

  /** After the commit: the live wake-ups (a lost one delays nobody's durable read past its poll). */
  function announce(notices: readonly PendingNotice[], appended: readonly EventRecord[]): void {
    const failed = (err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'a committed run notice was not published on the bus');
    const traced = tracingStarted();
    for (const { envelope } of notices) {
      const publish = () => bus.publish(envelope.type, envelope);
      const sent = traced
        ? continueTrace(
            envelope.traceparent,
            `publish ${envelope.type}`,
            { 'messaging.message.id': envelope.id },
            publish,
          )
        : publish();
      sent.catch(failed);
    }
    const heads = new Map<string, EventRecord>();
    for (const e of appended) {
      const key = `${e.tenantId}\u0000${e.topic}`;
      const head = heads.get(key);
      if (!head || e.position > head.position) heads.set(key, e);
    }
    for (const e of heads.values())
      bus
        .publish(EVENTS_EVENT_PUBLISHED.topic, { tenant_id: e.tenantId, topic: e.topic, position: e.position })
        .catch(failed);
  }

  const write = groupCommit<RunRecord>(
    async (items) => {
      const events = items.map((i) => i.event);
      const notices = items.flatMap((i) => (i.notice ? [i.notice] : []));
      if (notices.length === 0) {
        await insertAudit(db.sql, events);
        return;
      }
      // The streams' topics must be readable by name (the events service may not have started yet); once per process.
      await ensurePlatformTopics(db.sql);
      const appended = await db.sql.transaction(async (tx) => {
        // The audit insert also asks which of the group's tenants have an enabled webhook
        // endpoint (the question the webhook hook asks first): most have none, and then the
        // append needs no hook, one statement fewer per group.
        const tenants = [...new Set(notices.map((n) => n.envelope.tenantid))];
        const audit = outboxInsert(service, events, 2);
        const listening = await tx.query(
          `WITH audit AS (${audit.text}\n  RETURNING 1)\n${LISTENING_TENANTS}`,
          [tenants, ...audit.params],
          { prepareAs: 'validation_run_audit_hooks' },
        );
        return appendNotices(
          tx,
          notices.map((n) => ({ topic: n.envelope.type, envelope: n.envelope })),
          listening.rows.length > 0 ? backboneStore : createEventsStore,
        );
      });
      announce(notices, appended);
    },
    { maxBatch: options.maxBatch ?? 500, maxInFlight: options.maxInFlight ?? 1 },
  );
  return { append: (event, notice) => write({ event, notice }) };
}
