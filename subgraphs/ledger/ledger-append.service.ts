// Group commit: concurrent appends in this process are gathered into one transaction that locks
// the heads of the tenants involved (in the database, so several ledger processes on one
// PostgreSQL serialise per tenant and never fork a chain) and extends each chain by several
// events with one multi-row INSERT. While a transaction is in flight, new appends queue up and
// form the next batch; batches of disjoint tenants may run side by side.
import { randomUUID } from 'node:crypto';
import { chainHash, contentHash } from './ledger.hash';
import { appendLeaves, frontierOf, frontierText, type TreeNode } from './merkle';
import type { LedgerStore } from './ledger.store';
import { formatMicros, nowMicros } from './ledger.time';
import type { AppendResult, ChainHead, LedgerEvent, NewEventRow } from './ledger.types';
import { InputError, UnavailableError } from '../../platform/errors/domain-errors';
import { DEFAULT_RETRY, isTransientDbError, withDbRetry, type RetryPolicy } from '../../platform/db/db-retry';

/** An append whose input is validated and whose event_data is already canonical. */
export interface PreparedAppend {
  tenantId: string;
  eventType: string;
  eventDataText: string;
  userId: string | null;
  correlationId: string | null;
  description: string | null;
  idempotencyKey: string | null;
  /** The authenticated writer (username of the token), or null for anonymous gateway traffic. */
  writtenBy: string | null;
  /** The trace of the request appending it (platform/telemetry), stored beside the hashed fields. */
  traceId?: string | null;
}

interface Pending {
  input: PreparedAppend;
  /** Chosen before the first attempt, so a retry can tell whether an earlier commit landed. */
  id: string;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

export interface GroupCommitOptions {
  /** Most events in one transaction. */
  maxBatch?: number;
  /** Transactions in flight at once (PGlite has one connection: 1). */
  maxInFlight?: number;
  retry?: RetryPolicy;
  clock?: () => number;
  /** Called after commit with the newly stored events (never for idempotent replays). */
  onCommitted?: (events: LedgerEvent[]) => void;
  /**
   * Keep the Merkle tree (default). Off only to measure what the tree costs an append
   * (`npm run bench -- ledger proofs`): a chain appended without it has no proofs.
   */
  keepTree?: boolean;
}

/** PostgreSQL data exceptions (class 22) mean this event's values cannot be stored: the client's input. */
function storageRefusal(err: unknown): InputError | undefined {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code !== 'string' || !e.code.startsWith('22')) return undefined;
  return InputError.of(['body', 'event_data'], `Value cannot be stored: ${e.message ?? 'invalid data'}`, 'value_error');
}

const keyOf = (tenantId: string, key: string) => `${tenantId}\u0000${key}`;

export class GroupCommitter {
  private queue: Pending[] = [];
  private readonly busyTenants = new Set<string>();
  private inFlight = 0;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly retry: RetryPolicy;
  private readonly clock: () => number;

  constructor(
    private readonly store: LedgerStore,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.clock = options.clock ?? nowMicros;
  }

  append(input: PreparedAppend): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ input, id: randomUUID(), resolve, reject });
      this.schedulePump();
    });
  }

  /**
   * Builds the Merkle tree of a chain written before the ledger kept one (its frontier is empty
   * though it has entries), under the head's lock like an append. Answers whether it built one.
   */
  catchUpTree(tenantId: string): Promise<boolean> {
    return this.store.appendTransaction(async (tx) => {
      const head = (await tx.lockHeads([tenantId])).get(tenantId)!;
      if (head.lastSeq === 0 || head.treeFrontier !== '') return false;
      const built = appendLeaves(0, [], await tx.chainHashesAfter(tenantId, 0));
      head.treeFrontier = frontierText(built.frontier);
      await tx.insertEvents(
        [],
        [head],
        built.nodes.map((n) => ({ ...n, tenantId })),
      );
      return true;
    });
  }

  private pumpScheduled = false;
  private readonly idleWaiters: (() => void)[] = [];

  /** Resolves once every append submitted so far has committed or failed (graceful stop). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0 && !this.pumpScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIfIdle(): void {
    if (this.queue.length === 0 && this.inFlight === 0 && !this.pumpScheduled) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /**
   * Batches start on the next turn of the event loop, not at once: requests whose bytes have
   * already arrived get parsed and queued first and join the batch. Without this yield a batch
   * would often start with the one request that triggered it (PGlite, which blocks the thread
   * while it runs a transaction, went from ~400 to thousands of appends/s with it).
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
      this.notifyIfIdle();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      const tenants = new Set(batch.map((p) => p.input.tenantId));
      for (const t of tenants) this.busyTenants.add(t);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        for (const t of tenants) this.busyTenants.delete(t);
        this.schedulePump();
      });
    }
  }

  /** The next batch in arrival order, skipping tenants another in-flight batch holds (keeps per-tenant order). */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const p of this.queue) {
      if (batch.length < this.maxBatch && !this.busyTenants.has(p.input.tenantId)) batch.push(p);
      else rest.push(p);
    }
    // A tenant cut off by maxBatch must not overtake itself in a parallel batch.
    if (rest.length > 0 && batch.length === this.maxBatch) {
      for (const p of batch) this.busyTenants.add(p.input.tenantId);
    }
    this.queue = rest;
    return batch;
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const { results, fresh } = await withDbRetry((attempt) => this.commit(batch, attempt), this.retry);
      batch.forEach((p, i) => p.resolve(results[i]!));
      if (fresh.length > 0) this.options.onCommitted?.(fresh);
    } catch (err) {
      if (batch.length > 1 && !isTransientDbError(err) && !(err instanceof UnavailableError)) {
        // One bad event must not fail its neighbours: commit them one by one so only it fails.
        for (const p of batch) await this.flush([p]);
        return;
      }
      for (const p of batch) p.reject(storageRefusal(err) ?? err);
    }
  }

  private commit(batch: Pending[], attempt: number): Promise<{ results: AppendResult[]; fresh: NewEventRow[] }> {
    return this.store.appendTransaction(async (tx) => {
      const tenants = [...new Set(batch.map((p) => p.input.tenantId))].sort();
      const heads = await tx.lockHeads(tenants);
      const results: (AppendResult | undefined)[] = new Array(batch.length);

      if (attempt > 0) {
        // The previous attempt may have committed before its connection died: keep what landed.
        const landed = new Map(
          (
            await tx.findByIds(
              tenants,
              batch.map((p) => p.id),
            )
          ).map((e) => [e.id, e]),
        );
        batch.forEach((p, i) => {
          const event = landed.get(p.id);
          if (event) results[i] = { event, replayed: false };
        });
      }

      const keyed = batch.filter((p, i) => !results[i] && p.input.idempotencyKey);
      if (keyed.length > 0) {
        const found = await tx.findByIdempotencyKeys(
          keyed.map((p) => ({ tenantId: p.input.tenantId, key: p.input.idempotencyKey! })),
        );
        const byKey = new Map(found.map((e) => [keyOf(e.tenantId, e.idempotencyKey), e]));
        batch.forEach((p, i) => {
          const event =
            !results[i] && p.input.idempotencyKey
              ? byKey.get(keyOf(p.input.tenantId, p.input.idempotencyKey))
              : undefined;
          if (event) results[i] = { event, replayed: true };
        });
      }

      const startSeqs = new Map([...heads.values()].map((h) => [h.tenantId, h.lastSeq]));
      const now = this.clock();
      const fresh: NewEventRow[] = [];
      const inBatch = new Map<string, NewEventRow>();
      const moved = new Map<string, ChainHead>();
      batch.forEach((p, i) => {
        if (results[i]) return;
        const input = p.input;
        if (input.idempotencyKey) {
          const twin = inBatch.get(keyOf(input.tenantId, input.idempotencyKey));
          if (twin) {
            results[i] = { event: twin, replayed: true };
            return;
          }
        }
        const head = heads.get(input.tenantId)!;
        // Strictly increasing along the chain, whatever this process's clock says.
        const us = Math.max(now, head.lastCreatedAtUs + 1);
        const createdAt = formatMicros(us);
        const content = contentHash({
          tenantId: input.tenantId,
          eventType: input.eventType,
          eventDataCanonical: input.eventDataText,
          userId: input.userId,
          createdAt,
        });
        const row: NewEventRow = {
          id: p.id,
          tenantId: input.tenantId,
          seq: head.lastSeq + 1,
          eventType: input.eventType,
          eventDataText: input.eventDataText,
          createdAt,
          createdAtUs: us,
          contentHash: content,
          previousHash: head.lastHash,
          chainHash: chainHash(content, head.lastHash),
          userId: input.userId,
          correlationId: input.correlationId,
          description: input.description,
          idempotencyKey: input.idempotencyKey,
          writtenBy: input.writtenBy,
          traceId: input.traceId ?? null,
        };
        head.lastSeq = row.seq;
        head.lastHash = row.chainHash;
        head.lastCreatedAtUs = us;
        moved.set(head.tenantId, head);
        if (input.idempotencyKey) inBatch.set(keyOf(input.tenantId, input.idempotencyKey), row);
        fresh.push(row);
        results[i] = { event: row, replayed: false };
      });
      if (fresh.length > 0)
        await tx.insertEvents(
          fresh,
          [...moved.values()],
          this.options.keepTree === false ? [] : await growTrees(tx, fresh, heads, startSeqs),
        );
      return { results: results as AppendResult[], fresh };
    });
  }
}

const popcount = (n: number) => n.toString(2).replace(/0/g, '').length;

/**
 * Extends each tenant's Merkle tree by its new entries, inside the append's transaction: the
 * frontier moves with the head and the new nodes go in with the rows, so a committed entry is
 * always in the tree and an append never waits for a rebuild. A chain older than the tree (its
 * frontier does not match its length) is caught up once, here, from its stored chain hashes.
 */
async function growTrees(
  tx: import('./ledger.store').LedgerAppendTx,
  fresh: NewEventRow[],
  heads: Map<string, ChainHead>,
  startSeqs: Map<string, number>,
): Promise<(TreeNode & { tenantId: string })[]> {
  const byTenant = new Map<string, string[]>();
  for (const row of fresh) byTenant.set(row.tenantId, [...(byTenant.get(row.tenantId) ?? []), row.chainHash]);
  const nodes: (TreeNode & { tenantId: string })[] = [];
  for (const [tenantId, chains] of byTenant) {
    const head = heads.get(tenantId)!;
    const start = startSeqs.get(tenantId)!;
    let frontier = frontierOf(head.treeFrontier);
    let size = start;
    if (frontier.length !== popcount(start)) {
      const older = await tx.chainHashesAfter(tenantId, 0);
      const built = appendLeaves(0, [], older.slice(0, start));
      frontier = built.frontier;
      nodes.push(...built.nodes.map((n) => ({ ...n, tenantId })));
      size = start;
    }
    const grown = appendLeaves(size, frontier, chains);
    nodes.push(...grown.nodes.map((n) => ({ ...n, tenantId })));
    head.treeFrontier = frontierText(grown.frontier);
  }
  return nodes;
}
