// The outbox relay: delivers rows of `outbox_events` (written by producing services in the same
// transaction as their change) to the ledger's append route, with the row's idempotency key, so
// an audit event survives a ledger outage and reaches it exactly once. Per tenant, rows go in id
// order and a failing row holds back the tenant's later rows (retried with exponential backoff)
// so the ledger's chain has them in the order they happened.
//
// A tenant's due rows go to the ledger in one call when there are several
// (`POST /v1/ledger/append/batch`, appended in order, in the ledger's group commit) and are marked
// delivered in one statement: one HTTP call per tenant per pass instead of one per event, and the
// ledger commits them together instead of one transaction each (a workflow execution writes two
// audit events). A batch the ledger refuses (400/413/422: one bad event; 404/405: a ledger without
// the batch route) is sent again one row at a time, so only the bad row is dead-lettered; a batch that
// failed part-way is safe to send again because every row carries its idempotency key.
import type { Database } from '../db/database';
import { LedgerClientError, type LedgerAppendRequest, type LedgerClient } from '../clients/ledger.client';
import type { Logger } from '../logging/logger';
import { continueTrace, tracingStarted } from '../telemetry/trace-context';
import { createOutboxStore, type OutboxRow, type OutboxStore, type TenantOutbox } from './outbox.store';

export interface OutboxRelayOptions {
  db: Database;
  ledger: LedgerClient;
  logger: Logger;
  /** Only rows of these producing services (e.g. ['identity']); all when absent. */
  services?: string[];
  /** Idle wait between polls. */
  pollMs?: number;
  /** Rows per tenant per pass. */
  batchSize?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** Delivered rows older than this are deleted (the ledger has them); default 7 days. */
  retainDeliveredMs?: number;
  store?: OutboxStore;
}

export interface OutboxRelay {
  /** Runs one pass now (also what the timer runs); resolves with the number of rows delivered. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for the pass in flight to finish. */
  stop(): Promise<void>;
}

/**
 * The ledger judged the event itself invalid (400, 413, 422). Auth failures (401/403) and
 * everything retryable are not: fixing configuration or waiting can make those succeed.
 */
function isRefusedForGood(err: unknown): boolean {
  return err instanceof LedgerClientError && !err.retryable && [400, 413, 422].includes(err.status ?? 0);
}

function appendRequest(row: OutboxRow): LedgerAppendRequest {
  return {
    tenant_id: row.tenant_id,
    event_type: row.event_type,
    event_data: row.event_data,
    user_id: row.user_id,
    correlation_id: row.correlation_id,
    description: row.description,
    idempotency_key: row.idempotency_key,
  };
}

function firstNotDue(rows: readonly OutboxRow[]): number {
  const i = rows.findIndex((r) => !r.due);
  return i === -1 ? rows.length : i;
}

export function backoffDelay(attempts: number, backoff: { baseMs: number; maxMs: number }): number {
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempts));
}

/** The trace id a stored `traceparent` names, if it is one. */
function traceIdOf(traceparent: string | null | undefined): string | null {
  return traceparent && /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent)
    ? traceparent.slice(3, 35)
    : null;
}

/**
 * The leading rows one ledger call may carry. The ledger records each event's trace id from the
 * call's own trace (a ledger entry links to the request that caused it), so while spans are
 * recorded a call carries only rows of the head row's trace; without tracing no trace id is
 * recorded and every due row may go together.
 */
function sameTrace(due: OutboxRow[]): OutboxRow[] {
  if (!tracingStarted() || due.length < 2) return due;
  const head = traceIdOf(due[0]!.traceparent);
  let n = 1;
  while (n < due.length && traceIdOf(due[n]!.traceparent) === head) n++;
  return due.slice(0, n);
}

export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const store = options.store ?? createOutboxStore(options.db);
  const services = options.services && options.services.length > 0 ? options.services : null;
  const pollMs = options.pollMs ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const backoff = options.backoff ?? { baseMs: 500, maxMs: 60_000 };
  const retainDeliveredMs = options.retainDeliveredMs ?? 7 * 24 * 3600_000;
  const log = options.logger;
  let lastPrune = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<number> | undefined;

  async function deliver(row: OutboxRow): Promise<void> {
    // A child of the request that wrote the row: the ledger append joins that request's trace.
    const attributes = { 'outbox.id': row.id, 'outbox.service': row.service, 'outbox.event_type': row.event_type };
    await continueTrace(row.traceparent, 'outbox.deliver', attributes, () => send(row));
  }

  async function send(row: OutboxRow): Promise<void> {
    await options.ledger.append(appendRequest(row), { correlationId: row.correlation_id ?? undefined });
  }

  /**
   * The rows in one ledger call: 'delivered', 'failed' (retryable: the first row is backed off and
   * the tenant waits, as for a single row) or 'refused' (send them one by one instead).
   */
  async function deliverBatch(rows: OutboxRow[], outbox: TenantOutbox): Promise<'delivered' | 'failed' | 'refused'> {
    const appendBatch = options.ledger.appendBatch!.bind(options.ledger);
    const attributes = { 'outbox.count': rows.length, 'outbox.tenant_id': rows[0]!.tenant_id };
    try {
      await continueTrace(rows[0]!.traceparent, 'outbox.deliver', attributes, () =>
        appendBatch(rows.map(appendRequest)),
      );
    } catch (err) {
      // An event the ledger judged invalid, or a ledger without the batch route: row by row finds out.
      if (err instanceof LedgerClientError && !err.retryable && [400, 404, 405, 413, 422].includes(err.status ?? 0))
        return 'refused';
      const delay = backoffDelay(rows[0]!.attempts, backoff);
      await outbox.markFailed(rows[0]!.id, delay, (err as Error).message);
      log.warn(
        {
          outboxId: rows[0]!.id,
          tenant: rows[0]!.tenant_id,
          rows: rows.length,
          retryInMs: delay,
          err: (err as Error).message,
        },
        'outbox batch delivery failed',
      );
      return 'failed';
    }
    await outbox.markDelivered(rows.map((r) => r.id));
    return 'delivered';
  }

  async function pass(): Promise<number> {
    // Housekeeping at most hourly: the outbox would otherwise grow by every event ever sent.
    if (Date.now() - lastPrune >= 3600_000) {
      lastPrune = Date.now();
      const pruned = await store.pruneDelivered(services, new Date(Date.now() - retainDeliveredMs));
      if (pruned > 0) log.info({ pruned }, 'pruned delivered outbox rows');
    }
    let delivered = 0;
    const tenants = await store.dueTenants(services, 50);
    for (const tenantId of tenants) {
      if (stopped) break;
      await store.withTenant(tenantId, services, async (outbox) => {
        // The due head of the tenant's queue: a row waiting for its retry holds back the rest.
        const pending = await outbox.pending(batchSize);
        const due = pending.slice(0, firstNotDue(pending));
        const batch = sameTrace(due);
        if (batch.length > 1 && options.ledger.appendBatch && !stopped) {
          const outcome = await deliverBatch(batch, outbox);
          if (outcome === 'delivered') delivered += batch.length;
          if (outcome !== 'refused') return;
        }
        for (const row of due) {
          if (stopped) return;
          try {
            await deliver(row);
          } catch (err) {
            if (isRefusedForGood(err)) {
              // Retrying cannot fix a malformed event; keeping it would block every later event
              // of the tenant. It stays in the table (dead_lettered_at) for an operator.
              await outbox.markDeadLettered(row.id, (err as Error).message);
              log.error(
                { outboxId: row.id, tenant: tenantId, status: (err as LedgerClientError).status },
                'outbox event refused by the ledger: dead-lettered',
              );
              continue;
            }
            const delay = backoffDelay(row.attempts, backoff);
            await outbox.markFailed(row.id, delay, (err as Error).message);
            log.warn(
              {
                outboxId: row.id,
                tenant: tenantId,
                attempts: row.attempts + 1,
                retryInMs: delay,
                err: (err as Error).message,
              },
              'outbox delivery failed',
            );
            // Later rows of this tenant wait for this one: never reorder a tenant's events.
            return;
          }
          await outbox.markDelivered([row.id]);
          delivered++;
        }
      });
    }
    return delivered;
  }

  function runOnce(): Promise<number> {
    // One pass at a time per relay.
    inFlight ??= pass().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  function schedule(ms: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      runOnce().then(
        (n) => schedule(n > 0 ? 0 : pollMs),
        (err) => {
          log.warn({ err: (err as Error).message }, 'outbox relay pass failed');
          schedule(pollMs);
        },
      );
    }, ms);
  }
  schedule(0);

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight?.catch(() => 0);
    },
  };
}
