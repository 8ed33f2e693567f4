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

/** A batch planned for the one-statement path when it was taken (GroupCommitter.planUnchanged). */
interface UnchangedPlan {
  tenants: string[];
  /** The head each tenant must still have in the database (possibly one an earlier batch in flight writes). */
  expected: Map<string, ChainHead>;
  moved: ChainHead[];
  fresh: NewEventRow[];
  nodes: (TreeNode & { tenantId: string })[];
  results: (AppendResult | undefined)[];
}

export class GroupCommitter {
  private queue: Pending[] = [];
  /**
   * Per tenant, the head after every batch this process has planned for it: committed, or
   * written by a one-statement batch still in flight (then the next batch may be planned on it
   * and sent at once; see take()).
   */
  private readonly knownHeads = new Map<string, ChainHead>();
  /** Per tenant with a batch in flight: a promise settled once the latest such batch has finished. */
  private readonly tails = new Map<string, Promise<void>>();
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

  /**
   * Starts batches while fewer than maxInFlight are in flight. Each batch is planned here, at
   * once: on the one-statement path its heads become the tenants' known heads before the next
   * batch is taken, so that batch can extend the same chains without waiting for this commit.
   */
  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      const tenants = [...new Set(batch.map((p) => p.input.tenantId))];
      const after = tenants.flatMap((t) => this.tails.get(t) ?? []);
      const plan = this.planUnchanged(batch, tenants);
      let settle!: () => void;
      const done = new Promise<void>((resolve) => (settle = resolve));
      for (const t of tenants) this.tails.set(t, done);
      this.inFlight++;
      void this.flush(batch, plan, after).finally(() => {
        this.inFlight--;
        for (const t of tenants) if (this.tails.get(t) === done) this.tails.delete(t);
        settle();
        this.schedulePump();
      });
    }
  }

  /**
   * The next batch in arrival order. A tenant with a batch in flight joins only when that batch
   * went the one-statement way (its head after it is known) and the append has no idempotency key
   * (a key is looked up in the statement's snapshot, which cannot see the batch ahead of it).
   * Once one of a tenant's appends stays queued, so do its later ones (per-tenant order).
   */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const held = new Set<string>();
    for (const p of this.queue) {
      const t = p.input.tenantId;
      const joins =
        batch.length < this.maxBatch &&
        !held.has(t) &&
        (!this.tails.has(t) || (this.knownHeads.has(t) && !p.input.idempotencyKey));
      if (joins) batch.push(p);
      else {
        rest.push(p);
        held.add(t);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async flush(batch: Pending[], plan?: UnchangedPlan, after: Promise<void>[] = []): Promise<void> {
    try {
      const { results, fresh } = await withDbRetry((attempt) => this.commit(batch, attempt, plan, after), this.retry);
      batch.forEach((p, i) => p.resolve(results[i]!));
      if (fresh.length > 0) this.options.onCommitted?.(fresh);
    } catch (err) {
      if (batch.length > 1 && !isTransientDbError(err) && !(err instanceof UnavailableError)) {
        // One bad event must not fail its neighbours: commit them one by one so only it fails.
        await Promise.all(after);
        for (const p of batch) await this.flush([p]);
        return;
      }
      for (const p of batch) p.reject(storageRefusal(err) ?? err);
    }
  }

  private async commit(
    batch: Pending[],
    attempt: number,
    plan: UnchangedPlan | undefined,
    after: Promise<void>[],
  ): Promise<Committed> {
    if (attempt === 0 && plan) return this.commitUnchanged(batch, plan, after);
    // The locked way reads the stored heads: the batches ahead of this one (same tenants) finish
    // first, so a retry of theirs cannot land behind these events.
    if (plan) for (const t of plan.tenants) this.knownHeads.delete(t);
    await Promise.all(after);
    return this.commitLocked(batch, attempt);
  }

  /**
   * The common case, planned when the batch was taken: every tenant's head is known (this
   * process wrote it last, or a batch of its own in flight is writing it), so the rows are
   * computed from memory. Undefined: not applicable, the batch goes the locked way; its tenants'
   * heads are forgotten so no batch is planned on them until it has committed.
   */
  private planUnchanged(batch: Pending[], tenants: string[]): UnchangedPlan | undefined {
    const forget = () => {
      for (const t of tenants) this.knownHeads.delete(t);
      return undefined;
    };
    if (this.options.keepTree === false || !tenants.every((t) => this.knownHeads.has(t))) return forget();
    const expected = new Map(tenants.map((t) => [t, this.knownHeads.get(t)!]));
    const heads = new Map(tenants.map((t) => [t, { ...expected.get(t)! }]));
    const startSeqs = new Map(tenants.map((t) => [t, expected.get(t)!.lastSeq]));
    const results: (AppendResult | undefined)[] = new Array(batch.length);
    const { fresh, moved } = this.plan(batch, heads, results);
    // A known head always has its tree; a chain older than the tree goes the locked way.
    const nodes = growKnownTrees(fresh, heads, startSeqs);
    if (!nodes) return forget();
    for (const t of tenants) this.remember(heads.get(t)!);
    // Heads in tenant order: two statements in flight lock shared heads in the same order.
    const sorted = [...moved.values()].sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0));
    return { tenants, expected, moved: sorted, fresh, nodes, results };
  }

  /**
   * One statement (no BEGIN, no lock round trip, no COMMIT: four round trips become one; issue
   * 35) that stores the rows only where each head is still the expected one. A head an earlier
   * batch of this process is writing makes the statement wait for that commit, then holds; the
   * next batch's statement is thus on its way while this one's commit is flushed, and PostgreSQL
   * flushes both together. Tenants another process appended to meanwhile (or whose earlier batch
   * failed) go through the locked path.
   */
  private async commitUnchanged(batch: Pending[], plan: UnchangedPlan, after: Promise<void>[]): Promise<Committed> {
    const { tenants, results, fresh } = plan;
    let applied: Set<string>;
    try {
      applied = await this.store.appendIfUnchanged(fresh, plan.moved, plan.expected, plan.nodes);
    } catch (err) {
      for (const t of tenants) this.knownHeads.delete(t);
      throw err;
    }
    // A head not stored: every head planned on it since is wrong too.
    for (const t of tenants) if (!applied.has(t)) this.knownHeads.delete(t);
    if (applied.size === tenants.length) return { results: results as AppendResult[], fresh };
    const restIndexes = batch.flatMap((p, i) => (applied.has(p.input.tenantId) ? [] : [i]));
    await Promise.all(after);
    const again = await this.commitLocked(
      restIndexes.map((i) => batch[i]!),
      0,
    );
    const merged = [...results];
    restIndexes.forEach((i, k) => (merged[i] = again.results[k]));
    return {
      results: merged as AppendResult[],
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

type Committed = { results: AppendResult[]; fresh: NewEventRow[] };

/** Heads kept per process for the one-statement path (a tenant beyond it takes the locked path). */
const KNOWN_HEADS = 10_000;

const popcount = (n: number) => n.toString(2).replace(/0/g, '').length;

/** Extends a tenant's tree from a frontier that matches its size; the new nodes go to `nodes`. */
function extendTree(
  tenantId: string,
  head: ChainHead,
  size: number,
  frontier: Buffer[],
  chains: string[],
  nodes: (TreeNode & { tenantId: string })[],
): void {
  const grown = appendLeaves(size, frontier, chains);
  for (const n of grown.nodes) nodes.push({ ...n, tenantId });
  head.treeFrontier = frontierText(grown.frontier);
}

function chainsByTenant(fresh: NewEventRow[]): Map<string, string[]> {
  const byTenant = new Map<string, string[]>();
  for (const row of fresh) {
    const chains = byTenant.get(row.tenantId);
    if (chains) chains.push(row.chainHash);
    else byTenant.set(row.tenantId, [row.chainHash]);
  }
  return byTenant;
}

/** growTrees for heads this process knows: undefined when a chain predates the tree (needs its stored hashes). */
function growKnownTrees(
  fresh: NewEventRow[],
  heads: Map<string, ChainHead>,
  startSeqs: Map<string, number>,
): (TreeNode & { tenantId: string })[] | undefined {
  const nodes: (TreeNode & { tenantId: string })[] = [];
  for (const [tenantId, chains] of chainsByTenant(fresh)) {
    const head = heads.get(tenantId)!;
    const start = startSeqs.get(tenantId)!;
    const frontier = frontierOf(head.treeFrontier);
    if (frontier.length !== popcount(start)) return undefined;
    extendTree(tenantId, head, start, frontier, chains, nodes);
  }
  return nodes;
}

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
  const nodes: (TreeNode & { tenantId: string })[] = [];
  for (const [tenantId, chains] of chainsByTenant(fresh)) {
    const head = heads.get(tenantId)!;
    const start = startSeqs.get(tenantId)!;
    let frontier = frontierOf(head.treeFrontier);
    if (frontier.length !== popcount(start)) {
      const older = await chainHashesAfter(tenantId, 0);
      const built = appendLeaves(0, [], older.slice(0, start));
      frontier = built.frontier;
      nodes.push(...built.nodes.map((n) => ({ ...n, tenantId })));
    }
    extendTree(tenantId, head, start, frontier, chains, nodes);
  }
  return nodes;
}
