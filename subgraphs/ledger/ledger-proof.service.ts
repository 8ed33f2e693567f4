// Proofs over a tenant's ledger (docs/ledger.md, "Proofs"): signed checkpoints, inclusion of an
// entry in a checkpoint and consistency between two checkpoints, as RFC 9162 defines them. Both
// doors (rest-compat/ledger/ledger-proofs.routes.ts and resolvers.ts) call these methods; every
// read goes through the tenant rule first, like the ledger's other reads.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { withDbRetry } from '../../platform/db/db-retry';
import { InputError, NotFoundError, RateLimitedError } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import type { Logger } from '../../platform/logging/logger';
import type { CheckpointSigner } from './checkpoint.signer';
import type { Checkpoint, LedgerProofStore } from './ledger-proof.store';
import { nodeKey } from './ledger-proof.store';
import type { LedgerStore } from './ledger.store';
import { formatMicros, nowMicros } from './ledger.time';
import type { LedgerEvent } from './ledger.types';
import { CheckpointTree } from './merkle-levels';
import {
  consistencyPath,
  frontierOf,
  frontierRoot,
  inclusionPath,
  plan,
  storedLookup,
  storedRefs,
  type NodeLookup,
} from './merkle';

/** The chain every checkpoint is also appended to, so one history is shown to every auditor. */
export const PLATFORM_CHAIN = '_platform';
export const CHECKPOINT_EVENT = 'ledger.checkpoint';
/** Past any chain this platform holds; sizes beyond are refused before any query. */
const MAX_TREE_SIZE = 2 ** 52;

export interface ProofOptions {
  /** A checkpoint after this many new entries of a tenant. */
  every: number;
  /** And for any tenant that grew, every this many ms (0: off). */
  intervalMs: number;
  /** On-demand checkpoints a tenant may request per minute in this process. */
  onDemandPerMinute: number;
}

export interface InclusionProof {
  tenantId: string;
  leafIndex: number;
  treeSize: number;
  entry: LedgerEvent;
  auditPath: string[];
  checkpoint: Checkpoint;
}

/** Many entries' inclusion proofs against ONE checkpoint (`inclusionBatch`). */
export interface InclusionProofBatch {
  tenantId: string;
  treeSize: number;
  checkpoint: Checkpoint;
  /** In the order asked, each entry once; entries of the tenant's log within the tree. */
  proofs: { leafIndex: number; entry: LedgerEvent; auditPath: string[] }[];
  /** Asked-for ids that are not entries of the tenant's log within the tree (another tenant's among them). */
  notFound: string[];
}

/** At most this many entries a batch: the proofs of a page of a report, one query for their nodes. */
export const INCLUSION_BATCH_MAX = 1000;

/** At most this many entry ids a stream (its HTTP body is ~40 MB); more: several streams. */
export const INCLUSION_STREAM_MAX = 1_000_000;
/** Proofs a batch of a stream at most (one line of its NDJSON answer). */
export const INCLUSION_STREAM_BATCH_MAX = 50_000;

/** Leaves read per query when a checkpoint's whole tree is built (`inclusionStream`). */
const LEAF_PAGE = 100_000;
/** Leaf pages read at once: each is an ordered index range, on its own pooled connection. */
const LEAF_PAGES_AHEAD = 3;
/**
 * Batches of entries being read while one is answered (`inclusionStream`), each on its own pooled
 * connection: reading and decoding rows is most of a stream's time, and PostgreSQL does it on
 * several cores at once while this process hashes and serialises.
 */
const READ_AHEAD = 4;

export interface ConsistencyProof {
  tenantId: string;
  first: Checkpoint;
  second: Checkpoint;
  proof: string[];
}

function sizeIssue(field: string, value: number | undefined): InputError | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_TREE_SIZE) {
    return InputError.of([field], `Input should be an integer between 1 and ${MAX_TREE_SIZE}`, 'value_error');
  }
  return undefined;
}

export class LedgerProofService {
  private readonly checkpointed = new Map<string, number>();
  private readonly requests = new Map<string, number[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: LedgerStore,
    private readonly proofs: LedgerProofStore,
    private readonly signer: CheckpointSigner,
    private readonly access: TenantAccess,
    /** Appends a checkpoint's record to the platform chain (the ledger's own group commit). */
    private readonly appendToPlatformChain: (data: Record<string, unknown>) => Promise<void>,
    private readonly options: ProofOptions,
    private readonly logger: Logger,
  ) {}

  jwks() {
    return this.signer.jwks();
  }

  /** The tenant's newest checkpoint; one is taken when the chain has entries but none yet. */
  async latestCheckpoint(caller: Caller, requested?: string): Promise<Checkpoint> {
    const tenantId = await this.access.resolve(caller, requested, ['tenantId'], 'ledger.checkpoint.latest');
    const latest = await withDbRetry(() => this.proofs.latestCheckpoint(tenantId));
    return latest ?? this.checkpoint(tenantId);
  }

  async listCheckpoints(caller: Caller, requested: string | undefined, limit: number): Promise<Checkpoint[]> {
    const tenantId = await this.access.resolve(caller, requested, ['tenantId'], 'ledger.checkpoint.list');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw InputError.of(['limit'], 'Input should be between 1 and 1000');
    return withDbRetry(() => this.proofs.listCheckpoints(tenantId, limit));
  }

  /** A checkpoint on demand: rate limited per tenant (a flood would only fill the platform chain). */
  async requestCheckpoint(caller: Caller, requested?: string): Promise<Checkpoint> {
    const tenantId = await this.access.resolve(caller, requested, ['tenantId'], 'ledger.checkpoint.take');
    const now = Date.now();
    const recent = (this.requests.get(tenantId) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= this.options.onDemandPerMinute) {
      throw new RateLimitedError(
        'Too many checkpoint requests for this tenant; try again later',
        Math.ceil((recent[0]! + 60_000 - now) / 1000),
      );
    }
    recent.push(now);
    this.requests.set(tenantId, recent);
    return this.checkpoint(tenantId);
  }

  /** Signs the tree as it stands (or answers the checkpoint already taken at this size). */
  async checkpoint(tenantId: string): Promise<Checkpoint> {
    const head = await withDbRetry(() => this.ledger.getHead(tenantId));
    if (!head || head.lastSeq === 0)
      throw new NotFoundError(`Tenant '${tenantId}' has no ledger entries to checkpoint`);
    const existing = await withDbRetry(() => this.proofs.checkpointOfSize(tenantId, head.lastSeq));
    if (existing) return existing;
    const rootHash = frontierRoot(frontierOf(head.treeFrontier)).toString('hex');
    const timestamp = formatMicros(nowMicros());
    const { keyId, signature } = this.signer.sign({ tenantId, treeSize: head.lastSeq, rootHash, timestamp });
    const { checkpoint, created } = await withDbRetry(() =>
      this.proofs.saveCheckpoint({
        id: randomUUID(),
        tenantId,
        treeSize: head.lastSeq,
        rootHash,
        timestamp,
        keyId,
        signature,
      }),
    );
    this.checkpointed.set(tenantId, Math.max(this.checkpointed.get(tenantId) ?? 0, checkpoint.treeSize));
    if (created && tenantId !== PLATFORM_CHAIN) {
      await this.appendToPlatformChain({
        checkpoint_id: checkpoint.id,
        tenant_id: tenantId,
        tree_size: checkpoint.treeSize,
        root_hash: rootHash,
        timestamp,
        key_id: keyId,
        signature,
      });
    }
    return checkpoint;
  }

  async inclusion(
    caller: Caller,
    q: { tenantId?: string; entryId?: string; seq?: number; treeSize?: number },
  ): Promise<InclusionProof> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.proof.inclusion');
    if ((q.entryId === undefined) === (q.seq === undefined))
      throw InputError.of(['entry_id'], 'Name the entry by entry_id or by seq (one of them)', 'missing');
    if (q.entryId !== undefined && !isUuid(q.entryId))
      throw InputError.of(['entry_id'], 'Input should be a valid UUID', 'uuid_parsing');
    const issue = sizeIssue('seq', q.seq) ?? sizeIssue('tree_size', q.treeSize);
    if (issue) throw issue;
    const entry = await withDbRetry(() =>
      q.entryId !== undefined ? this.ledger.getEvent(tenantId, q.entryId) : this.ledger.getEventBySeq(tenantId, q.seq!),
    );
    if (!entry) throw new NotFoundError('Ledger entry not found');
    const checkpoint = await this.checkpointCovering(tenantId, entry.seq, q.treeSize);
    const leafIndex = entry.seq - 1;
    const auditPath = await this.compute(tenantId, (node) => inclusionPath(leafIndex, checkpoint.treeSize, node));
    return {
      tenantId,
      leafIndex,
      treeSize: checkpoint.treeSize,
      entry,
      auditPath: auditPath.map((b) => b.toString('hex')),
      checkpoint,
    };
  }

  /**
   * Inclusion proofs of many entries against one existing checkpoint, in three queries whatever
   * their number: the entries, the checkpoint, and every leaf and stored node the proofs read
   * (proofs against one tree share their upper nodes, which are read once). An id the tenant's
   * log does not hold, or holds beyond the tree, is listed in `notFound` rather than failing the
   * batch, so another tenant's entry looks exactly like no entry.
   */
  async inclusionBatch(
    caller: Caller,
    q: { tenantId?: string; entryIds: readonly string[]; treeSize: number },
  ): Promise<InclusionProofBatch> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.proof.inclusion');
    if (q.entryIds.length < 1 || q.entryIds.length > INCLUSION_BATCH_MAX)
      throw InputError.of(['entry_ids'], `Give 1 to ${INCLUSION_BATCH_MAX} entry ids`, 'too_long');
    const bad = q.entryIds.findIndex((id) => !isUuid(id));
    if (bad >= 0) throw InputError.of(['entry_ids', bad], 'Input should be a valid UUID', 'uuid_parsing');
    const issue = sizeIssue('tree_size', q.treeSize);
    if (issue) throw issue;
    const ids = [...new Set(q.entryIds.map((id) => id.toLowerCase()))];
    const checkpoint = await this.existingCheckpoint(tenantId, q.treeSize, 'tree_size');
    const found = new Map(
      (await withDbRetry(() => this.ledger.getEvents(tenantId, ids)))
        .filter((e) => e.seq <= checkpoint.treeSize)
        .map((e) => [e.id.toLowerCase(), e]),
    );
    const entries = ids.flatMap((id) => found.get(id) ?? []);
    const paths = await this.compute(tenantId, (node) =>
      entries.map((e) => inclusionPath(e.seq - 1, checkpoint.treeSize, node)),
    );
    return {
      tenantId,
      treeSize: checkpoint.treeSize,
      checkpoint,
      proofs: entries.map((entry, i) => ({
        leafIndex: entry.seq - 1,
        entry,
        auditPath: paths[i]!.map((b) => b.toString('hex')),
      })),
      notFound: ids.filter((id) => !found.has(id)),
    };
  }

  /**
   * Inclusion proofs of MANY entries against one existing checkpoint, with the checkpoint's whole
   * tree built once (merkle-levels.ts): its leaves are read by seq range in pages, in order,
   * every node is hashed once, and each proof's path is read out of the tree. For a compliance
   * report's every item (a million entries: ~2 M SHA-256, seconds), where `inclusionBatch`
   * recomputed shared subtrees for each batch of 1,000. Checked before anything is streamed: the
   * caller's tenant, the checkpoint; the tree's root must be the signed one or nothing is
   * answered. Entries are named by id (`entryIds`: any number, in any order; answered in seq
   * order, ids not in the tenant's tree in `notFound` of the last batch) or by seq range
   * (`fromSeq`..`toSeq` within the tree, optionally of one `eventType`). Batches of `batchSize`.
   */
  async inclusionStream(
    caller: Caller,
    q: {
      tenantId?: string;
      treeSize: number;
      entryIds?: readonly string[];
      fromSeq?: number;
      toSeq?: number;
      eventType?: string;
      batchSize?: number;
    },
  ): Promise<{ checkpoint: Checkpoint; batches: AsyncIterable<InclusionProofBatch> }> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.proof.inclusion');
    const issue =
      sizeIssue('tree_size', q.treeSize) ?? sizeIssue('from_seq', q.fromSeq) ?? sizeIssue('to_seq', q.toSeq);
    if (issue) throw issue;
    const byIds = q.entryIds !== undefined;
    if (byIds === (q.fromSeq !== undefined || q.toSeq !== undefined))
      throw InputError.of(
        ['entry_ids'],
        'Name the entries by entry_ids or by from_seq/to_seq (one of them)',
        'missing',
      );
    if (byIds && (q.entryIds!.length < 1 || q.entryIds!.length > INCLUSION_STREAM_MAX))
      throw InputError.of(['entry_ids'], `Give 1 to ${INCLUSION_STREAM_MAX} entry ids`, 'too_long');
    const bad = (q.entryIds ?? []).findIndex((id) => !isUuid(id));
    if (bad >= 0) throw InputError.of(['entry_ids', bad], 'Input should be a valid UUID', 'uuid_parsing');
    if (q.batchSize !== undefined && (!Number.isInteger(q.batchSize) || q.batchSize < 1))
      throw InputError.of(['batch_size'], `Input should be an integer between 1 and ${INCLUSION_STREAM_BATCH_MAX}`);
    const checkpoint = await this.existingCheckpoint(tenantId, q.treeSize, 'tree_size');
    const fromSeq = q.fromSeq ?? 1;
    const toSeq = Math.min(q.toSeq ?? checkpoint.treeSize, checkpoint.treeSize);
    if (fromSeq > toSeq) throw InputError.of(['from_seq'], `from_seq (${fromSeq}) is past to_seq (${toSeq})`);
    const batchSize = Math.min(q.batchSize ?? 5000, INCLUSION_STREAM_BATCH_MAX);
    const wanted = byIds ? new Set(q.entryIds!.map((id) => id.toLowerCase())) : undefined;

    const tree = new CheckpointTree(checkpoint.treeSize);
    const seqs: number[] = []; // of the wanted entries, in order (by ids)
    const seqIds: string[] = []; // their ids
    // Pages of leaves, several read at once while the first is hashed, taken in order.
    const page = (from: number) => {
      const p = withDbRetry(() =>
        this.proofs.leavesBetween(tenantId, from, Math.min(from + LEAF_PAGE - 1, checkpoint.treeSize), byIds),
      );
      p.catch(() => {}); // awaited below in order; an earlier page's failure must not leave this one unhandled
      return p;
    };
    const pages: ReturnType<typeof page>[] = [];
    let nextPage = 1;
    const readPages = () => {
      while (pages.length < LEAF_PAGES_AHEAD && nextPage <= checkpoint.treeSize) {
        pages.push(page(nextPage));
        nextPage += LEAF_PAGE;
      }
    };
    readPages();
    for (let from = 1; pages.length > 0; from += LEAF_PAGE) {
      const leaves = await pages.shift()!;
      readPages();
      if (leaves.seqs.length !== Math.min(LEAF_PAGE, checkpoint.treeSize - from + 1) || leaves.seqs[0] !== from)
        throw new Error(`ledger of ${tenantId}: seq ${from}.. is not contiguous; verify the chain`);
      tree.addLeaves(leaves.chainHashes);
      if (wanted)
        leaves.ids.forEach((id, i) => {
          if (wanted.delete(id)) {
            seqs.push(leaves.seqs[i]!);
            seqIds.push(id);
          }
        });
    }
    tree.build();
    // The tree read now must be the one the checkpoint signed, or no proof from it is worth giving.
    if (tree.root().toString('hex') !== checkpoint.rootHash)
      throw new Error(
        `ledger of ${tenantId}: the tree of ${checkpoint.treeSize} entries does not match its checkpoint`,
      );
    const notFound = wanted ? [...wanted] : [];

    // The entries to prove, a batch at a time, the next batch read while this one is answered.
    const spans: [number, number][] = [];
    if (byIds) for (let i = 0; i < seqs.length; i += batchSize) spans.push([i, Math.min(i + batchSize, seqs.length)]);
    else for (let s = fromSeq; s <= toSeq; s += batchSize) spans.push([s, Math.min(s + batchSize - 1, toSeq)]);
    // By ids: their seq range when they are most of it (an index range), else the ids themselves.
    const read = async ([a, b]: [number, number]): Promise<LedgerEvent[]> => {
      if (!byIds) return withDbRetry(() => this.ledger.eventsBetween(tenantId, a, b, q.eventType));
      const keep = new Set(seqs.slice(a, b));
      const events =
        seqs[b - 1]! - seqs[a]! + 1 <= 2 * (b - a)
          ? await withDbRetry(() => this.ledger.eventsBetween(tenantId, seqs[a]!, seqs[b - 1]!))
          : (await withDbRetry(() => this.ledger.getEvents(tenantId, seqIds.slice(a, b)))).sort(
              (x, y) => x.seq - y.seq,
            );
      return events.filter((e) => keep.has(e.seq));
    };
    // A read the consumer never gets to (it stopped early) must not surface as an unhandled rejection.
    const readSoon = (span: [number, number]) => {
      const p = read(span);
      p.catch(() => {});
      return p;
    };
    async function* batches(): AsyncGenerator<InclusionProofBatch> {
      // Two reads ahead: the database's work overlaps this process's paths and JSON.
      const ahead = spans.slice(0, READ_AHEAD).map(readSoon);
      for (let k = 0; k < spans.length; k++) {
        const entries = await ahead.shift()!;
        if (k + READ_AHEAD < spans.length) ahead.push(readSoon(spans[k + READ_AHEAD]!));
        yield {
          tenantId,
          treeSize: checkpoint.treeSize,
          checkpoint,
          proofs: entries.map((entry) => ({ leafIndex: entry.seq - 1, entry, auditPath: tree.path(entry.seq - 1) })),
          notFound: k === spans.length - 1 ? notFound : [],
        };
      }
      if (spans.length === 0 && notFound.length > 0)
        yield { tenantId, treeSize: checkpoint.treeSize, checkpoint, proofs: [], notFound };
    }
    return { checkpoint, batches: batches() };
  }

  async consistency(
    caller: Caller,
    q: { tenantId?: string; first: number; second?: number },
  ): Promise<ConsistencyProof> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.proof.consistency');
    const issue = sizeIssue('first', q.first) ?? sizeIssue('second', q.second);
    if (issue) throw issue;
    const second =
      q.second === undefined
        ? await this.latestCheckpoint(caller, tenantId)
        : await this.existingCheckpoint(tenantId, q.second, 'second');
    if (q.first > second.treeSize)
      throw InputError.of(['first'], `first (${q.first}) is past second (${second.treeSize})`);
    const first = await this.existingCheckpoint(tenantId, q.first, 'first');
    const proof = await this.compute(tenantId, (node) => consistencyPath(first.treeSize, second.treeSize, node));
    return { tenantId, first, second, proof: proof.map((b) => b.toString('hex')) };
  }

  /** After a commit: a checkpoint for each tenant that grew by `every` entries since its last. */
  noteAppended(tenantId: string, size: number): void {
    if (tenantId === PLATFORM_CHAIN && this.options.every > 1 && size % this.options.every !== 0) return;
    const last = this.checkpointed.get(tenantId);
    if (last === undefined) {
      // First sight of the tenant in this process: learn its last checkpoint once.
      this.checkpointed.set(tenantId, 0);
      void withDbRetry(() => this.proofs.latestCheckpoint(tenantId)).then(
        (c) => {
          this.checkpointed.set(tenantId, Math.max(this.checkpointed.get(tenantId) ?? 0, c?.treeSize ?? 0));
        },
        () => this.checkpointed.delete(tenantId),
      );
      return;
    }
    if (size - last >= this.options.every) {
      this.checkpointed.set(tenantId, size);
      this.checkpoint(tenantId).catch((err: unknown) =>
        this.logger.warn({ err, tenantId }, 'ledger: checkpoint failed; the next append or pass retries'),
      );
    }
  }

  /** Chains older than the tree get theirs (catchUp: the committer's), then the timed pass starts. */
  async start(catchUp: (tenantId: string) => Promise<boolean>): Promise<void> {
    for (const tenantId of await withDbRetry(() => this.proofs.tenantsWithoutTree())) {
      if (await catchUp(tenantId))
        this.logger.info({ tenantId }, 'ledger: built the Merkle tree of a chain written before proofs');
    }
    if (this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      void this.checkpointBehind().catch((err: unknown) =>
        this.logger.warn({ err }, 'ledger: timed checkpoint pass failed'),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async checkpointBehind(): Promise<number> {
    const behind = await this.proofs.tenantsBehindCheckpoint(1000);
    // The platform chain grows by one entry per checkpoint: it is checkpointed by count only.
    const tenants = behind.filter((t) => t.tenantId !== PLATFORM_CHAIN);
    for (const t of tenants) await this.checkpoint(t.tenantId);
    return tenants.length;
  }

  private async checkpointCovering(tenantId: string, seq: number, treeSize: number | undefined): Promise<Checkpoint> {
    if (treeSize !== undefined) {
      if (treeSize < seq) throw InputError.of(['tree_size'], `Entry ${seq} is not in a tree of size ${treeSize}`);
      return this.existingCheckpoint(tenantId, treeSize, 'tree_size');
    }
    const latest = await withDbRetry(() => this.proofs.latestCheckpoint(tenantId));
    return latest && latest.treeSize >= seq ? latest : this.checkpoint(tenantId);
  }

  private async existingCheckpoint(tenantId: string, size: number, field: string): Promise<Checkpoint> {
    const found = await withDbRetry(() => this.proofs.checkpointOfSize(tenantId, size));
    if (found) return found;
    const head = await withDbRetry(() => this.ledger.getHead(tenantId));
    if (!head || size > head.lastSeq)
      throw InputError.of([field], `The tenant's log has ${head?.lastSeq ?? 0} entries; ${size} is beyond it`);
    throw new NotFoundError(`No checkpoint of size ${size}; take one or use a size from the checkpoint list`);
  }

  /** Plans the nodes a proof (or several) reads, reads them in one query, then computes it. */
  private async compute<T>(tenantId: string, proof: (node: NodeLookup) => T): Promise<T> {
    const { leafIndexes, nodes: stored } = storedRefs(plan(proof));
    const { leaves, nodes } = await withDbRetry(() => this.proofs.treeNodes(tenantId, leafIndexes, stored));
    return proof(
      storedLookup(
        (index) => leaves.get(index),
        (level, index) => nodes.get(nodeKey(level, index)),
      ),
    );
  }
}
