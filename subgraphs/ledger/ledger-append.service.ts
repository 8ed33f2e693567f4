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
  /** The head this process committed last, per tenant (commitIfUnchanged). */
  private readonly knownHeads = new Map<string, ChainHead>();
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
    this.knownHeads.delete(tenantId);
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

  private async commit(batch: Pending[], attempt: number): Promise<Committed> {
    // Keyed appends too: the statement leaves a tenant whose key is stored to the locked path
    // (the compliance intake appends every evidence revision with a key).
    if (attempt === 0) {
      const done = await this.commitIfUnchanged(batch);
      if (done) return done;
    }
    return this.commitLocked(batch, attempt);
  }

  /**
   * The common case in one statement: every tenant's head is the one this process wrote last, so
   * the rows are computed from memory and stored only where the head is still that one (no BEGIN,
   * no lock round trip, no COMMIT: four round trips become one; issue 35). Tenants another
   * process appended to meanwhile go through the locked path. Undefined: not applicable.
   */
  private async commitIfUnchanged(batch: Pending[]): Promise<Committed | undefined> {
    const tenants = [...new Set(batch.map((p) => p.input.tenantId))];
    if (!tenants.every((t) => this.knownHeads.has(t))) return undefined;
    const expected = new Map(tenants.map((t) => [t, this.knownHeads.get(t)!]));
    const heads = new Map(tenants.map((t) => [t, { ...expected.get(t)! }]));
    const startSeqs = new Map(tenants.map((t) => [t, expected.get(t)!.lastSeq]));
    const results: (AppendResult | undefined)[] = new Array(batch.length);
    const { fresh, moved } = this.plan(batch, heads, results);
    let nodes: (TreeNode & { tenantId: string })[] = [];
    if (this.options.keepTree !== false) {
      // A known head always has its tree; a chain older than the tree goes the locked way.
      const noOlderChain = (): Promise<string[]> => Promise.reject(new OlderChain());
      try {
        nodes = await growTrees(noOlderChain, fresh, heads, startSeqs);
      } catch (err) {
        if (err instanceof OlderChain) return undefined;
        throw err;
      }
    }
    let applied: Set<string>;
    try {
      applied = await this.store.appendIfUnchanged(fresh, [...moved.values()], expected, nodes);
    } catch (err) {
      for (const t of tenants) this.knownHeads.delete(t);
      throw err;
    }
    for (const t of tenants) {
      if (applied.has(t)) this.remember(heads.get(t)!);
      else this.knownHeads.delete(t);
    }
    if (applied.size === tenants.length) return { results: results as AppendResult[], fresh };
    // Another process moved these heads since this one wrote them: their events again, locked.
    const restIndexes = batch.flatMap((p, i) => (applied.has(p.input.tenantId) ? [] : [i]));
    const again = await this.commitLocked(
      restIndexes.map((i) => batch[i]!),
      0,
    );
    restIndexes.forEach((i, k) => (results[i] = again.results[k]));
    return {
      results: results as AppendResult[],
      fresh: [...fresh.filter((r) => applied.has(r.tenantId)), ...again.fresh],
    };
  }

  /** Keeps a head this process just committed (least recently written out first). */
  private remember(head: ChainHead): void {
    this.knownHeads.delete(head.tenantId);
    this.knownHeads.set(head.tenantId, head);
    if (this.knownHeads.size > KNOWN_HEADS) this.knownHeads.delete(this.knownHeads.keys().next().value!);
  }

  /** The rows of a batch's new events, extending `heads` (moved in place) in arrival order. */
  private plan(
    batch: Pending[],
    heads: Map<string, ChainHead>,
    results: (AppendResult | undefined)[],
  ): { fresh: NewEventRow[]; moved: Map<string, ChainHead> } {
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
    return { fresh, moved };
  }

  private async commitLocked(batch: Pending[], attempt: number): Promise<Committed> {
    const tenants = [...new Set(batch.map((p) => p.input.tenantId))].sort();
    for (const t of tenants) this.knownHeads.delete(t);
    let finalHeads: ChainHead[] = [];
    const committed = await this.store.appendTransaction(async (tx) => {
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
      const { fresh, moved } = this.plan(batch, heads, results);
      if (fresh.length > 0)
        await tx.insertEvents(
          fresh,
          [...moved.values()],
          this.options.keepTree === false
            ? []
            : await growTrees((t, after) => tx.chainHashesAfter(t, after), fresh, heads, startSeqs),
        );
      finalHeads = [...heads.values()];
      return { results: results as AppendResult[], fresh };
    });
    // Committed: these heads are this process's until another one writes (keepTree off leaves
    // the frontier behind, so those heads are not kept).
    if (this.options.keepTree !== false) for (const h of finalHeads) this.remember(h);
    return committed;
  }
}

/** Raised inside the one-statement path when a chain predates the tree (needs its stored hashes). */
class OlderChain extends Error {}

type Committed = { results: AppendResult[]; fresh: NewEventRow[] };

/** Heads kept per process for the one-statement path (a tenant beyond it takes the locked path). */
const KNOWN_HEADS = 10_000;

const popcount = (n: number) => n.toString(2).replace(/0/g, '').length;

/**
 * Extends each tenant's Merkle tree by its new entries, inside the append's transaction: the
 * frontier moves with the head and the new nodes go in with the rows, so a committed entry is
 * always in the tree and an append never waits for a rebuild. A chain older than the tree (its
 * frontier does not match its length) is caught up once, here, from its stored chain hashes.
 */
async function growTrees(
  chainHashesAfter: (tenantId: string, afterSeq: number) => Promise<string[]>,
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
      const older = await chainHashesAfter(tenantId, 0);
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
