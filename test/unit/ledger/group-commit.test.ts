// The group committer against a strict fake store: batching, chain arithmetic, idempotency,
// retries of deadlocks and of commits whose outcome was unknown, and isolation of a bad event.
import { InputError, UnavailableError } from '../../../platform/errors/domain-errors';
import { GroupCommitter, type PreparedAppend } from '../../../subgraphs/ledger/ledger-append.service';
import { chainHash, contentHash, GENESIS_HASH } from '../../../subgraphs/ledger/ledger.hash';
import type { LedgerAppendTx, LedgerStore } from '../../../subgraphs/ledger/ledger.store';
import { formatMicros } from '../../../subgraphs/ledger/ledger.time';
import { appendLeaves, frontierOf, frontierText } from '../../../subgraphs/ledger/merkle';
import type { ChainHead, LedgerEvent, NewEventRow } from '../../../subgraphs/ledger/ledger.types';
import { strictFake } from '../../support/strict-fake';

const FAST_RETRY = { attempts: 4, baseDelayMs: 1, maxDelayMs: 2 };

/** An in-memory "database" with transactional semantics just strong enough for the committer. */
function memoryStore(hooks: { beforeInsert?: (rows: NewEventRow[]) => void } = {}) {
  const heads = new Map<string, ChainHead>();
  const events: NewEventRow[] = [];
  const transactions: number[] = [];
  /** The tenants each one-statement append wrote. */
  const statements: string[][] = [];
  const store = strictFake<LedgerStore>(
    {
      async appendTransaction(work) {
        const staged: NewEventRow[] = [];
        const stagedHeads = new Map<string, ChainHead>();
        const tx = strictFake<LedgerAppendTx>(
          {
            async lockHeads(tenantIds) {
              return new Map(
                tenantIds.map((t) => [
                  t,
                  {
                    ...(heads.get(t) ?? {
                      tenantId: t,
                      lastSeq: 0,
                      lastHash: GENESIS_HASH,
                      lastCreatedAtUs: 0,
                      treeFrontier: '',
                    }),
                  },
                ]),
              );
            },
            async findByIdempotencyKeys(pairs) {
              return events.filter((e) =>
                pairs.some((p) => p.tenantId === e.tenantId && p.key === e.idempotencyKey),
              ) as (LedgerEvent & { idempotencyKey: string })[];
            },
            async findByIds(_tenants, ids) {
              return events.filter((e) => ids.includes(e.id));
            },
            async insertEvents(rows, moved) {
              hooks.beforeInsert?.(rows);
              staged.push(...rows);
              for (const h of moved) stagedHeads.set(h.tenantId, { ...h });
            },
          },
          'tx',
        );
        const result = await work(tx);
        // Commit.
        events.push(...staged);
        for (const [t, h] of stagedHeads) heads.set(t, h);
        transactions.push(staged.length);
        return result;
      },
      // One statement: only tenants whose stored head is exactly the expected one are written.
      async appendIfUnchanged(rows, moved, expected) {
        const applied = new Set<string>();
        for (const [t, was] of expected) {
          const now = heads.get(t);
          // A tenant with an idempotency key already stored is left to the locked path.
          const clash = rows.some(
            (r) =>
              r.tenantId === t &&
              r.idempotencyKey !== null &&
              events.some((e) => e.tenantId === t && e.idempotencyKey === r.idempotencyKey),
          );
          if (now && !clash && JSON.stringify(now) === JSON.stringify(was)) applied.add(t);
        }
        const mine = rows.filter((r) => applied.has(r.tenantId));
        hooks.beforeInsert?.(mine);
        events.push(...mine);
        for (const h of moved) if (applied.has(h.tenantId)) heads.set(h.tenantId, { ...h });
        if (mine.length > 0) transactions.push(mine.length);
        statements.push([...applied]);
        return applied;
      },
    },
    'store',
  );
  return { store, events, heads, transactions, statements };
}

const input = (tenantId: string, n: number, extra: Partial<PreparedAppend> = {}): PreparedAppend => ({
  tenantId,
  eventType: 'e',
  eventDataText: `{"n":${n}}`,
  userId: null,
  correlationId: null,
  description: null,
  idempotencyKey: null,
  writtenBy: null,
  ...extra,
});

it('batches concurrent appends into few transactions and links every chain correctly', async () => {
  const db = memoryStore();
  let clock = 1_000_000_000_000_000;
  const committer = new GroupCommitter(db.store, { maxInFlight: 1, retry: FAST_RETRY, clock: () => clock });
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => committer.append(input(`t${i % 3}`, i))));
  expect(db.transactions.length).toBeLessThan(30);
  expect(db.transactions.reduce((a, b) => a + b, 0)).toBe(30);
  for (const t of ['t0', 't1', 't2']) {
    const chain = db.events.filter((e) => e.tenantId === t).sort((a, b) => a.seq - b.seq);
    expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    let previous = GENESIS_HASH;
    for (const e of chain) {
      expect(e.previousHash).toBe(previous);
      const content = contentHash({
        tenantId: t,
        eventType: 'e',
        eventDataCanonical: e.eventDataText,
        userId: null,
        createdAt: e.createdAt,
      });
      expect(e.contentHash).toBe(content);
      expect(e.chainHash).toBe(chainHash(content, previous));
      previous = e.chainHash;
    }
  }
  // Same clock reading for a whole batch: created_at still strictly increases along each chain.
  const t0 = db.events.filter((e) => e.tenantId === 't0').sort((a, b) => a.seq - b.seq);
  for (let i = 1; i < t0.length; i++) expect(t0[i]!.createdAtUs).toBeGreaterThan(t0[i - 1]!.createdAtUs);
  expect(results.every((r) => !r.replayed)).toBe(true);
  clock -= 5_000_000; // the clock jumps back
  const later = await committer.append(input('t0', 99));
  expect(later.event.createdAt > t0[t0.length - 1]!.createdAt).toBe(true);
  expect(later.event.createdAt).toBe(formatMicros(t0[t0.length - 1]!.createdAtUs + 1));
});

it('appends in one statement once it knows a head, and re-links under the lock when another process moved it', async () => {
  const db = memoryStore();
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY, maxInFlight: 1 });
  await committer.append(input('t', 1)); // locked: the head is unknown to this process
  await committer.append(input('t', 2)); // one statement
  expect(db.statements).toEqual([['t']]);
  // Another process appends seq 3 (its own head move).
  const head = db.heads.get('t')!;
  const other: NewEventRow = {
    ...db.events[1]!,
    id: 'other-process',
    seq: 3,
    previousHash: head.lastHash,
    chainHash: chainHash('c', head.lastHash),
    createdAtUs: head.lastCreatedAtUs + 1,
  };
  db.events.push(other);
  const grown = appendLeaves(2, frontierOf(head.treeFrontier), [other.chainHash]);
  db.heads.set('t', {
    ...head,
    lastSeq: 3,
    lastHash: other.chainHash,
    lastCreatedAtUs: other.createdAtUs,
    treeFrontier: frontierText(grown.frontier),
  });
  const r = await committer.append(input('t', 4));
  // The statement wrote nothing for t; the locked path linked the event after the other's.
  expect(db.statements).toEqual([['t'], []]);
  expect(r.event).toMatchObject({ seq: 4, previousHash: other.chainHash });
  expect(db.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
});

/** The memory store with its one-statement appends held until released (a statement waiting on a head's lock). */
function heldStore(db: ReturnType<typeof memoryStore>) {
  const held: (() => void)[] = [];
  const store = strictFake<LedgerStore>({
    appendTransaction: (work) => db.store.appendTransaction(work),
    appendIfUnchanged: async (...args) => {
      await new Promise<void>((resolve) => held.push(resolve));
      return db.store.appendIfUnchanged(...args);
    },
  });
  return { store, held };
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

function expectLinked(db: ReturnType<typeof memoryStore>, tenant: string, length: number) {
  const chain = db.events.filter((e) => e.tenantId === tenant).sort((a, b) => a.seq - b.seq);
  expect(chain.map((e) => e.seq)).toEqual(Array.from({ length }, (_, i) => i + 1));
  chain.forEach((e, i) => expect(e.previousHash).toBe(i === 0 ? GENESIS_HASH : chain[i - 1]!.chainHash));
  return chain;
}

it('sends the next batch of a tenant while its previous one-statement batch is in flight, planned on its head', async () => {
  const db = memoryStore();
  const { store, held } = heldStore(db);
  const committer = new GroupCommitter(store, { retry: FAST_RETRY, maxInFlight: 2 });
  await committer.append(input('t', 1)); // locked: learns the head
  const a = committer.append(input('t', 2));
  await turns();
  const b = committer.append(input('t', 3));
  await turns();
  // Both statements are out before either has answered.
  expect(held).toHaveLength(2);
  held.splice(0).forEach((release) => release());
  expect((await a).event.seq).toBe(2);
  expect((await b).event.seq).toBe(3);
  expect(db.statements).toEqual([['t'], ['t']]);
  expectLinked(db, 't', 3);
});

it('keeps a keyed append of a tenant in flight back until that batch has committed', async () => {
  const db = memoryStore();
  const { store, held } = heldStore(db);
  const committer = new GroupCommitter(store, { retry: FAST_RETRY, maxInFlight: 2 });
  await committer.append(input('t', 1));
  const a = committer.append(input('t', 2, { idempotencyKey: 'k' }));
  await turns();
  const b = committer.append(input('t', 3, { idempotencyKey: 'k' }));
  await turns();
  expect(held).toHaveLength(1);
  held.shift()!();
  await a;
  await turns();
  held.shift()?.();
  expect(await b).toMatchObject({ replayed: true, event: { seq: 2 } });
  expectLinked(db, 't', 2);
});

it('when a batch in flight finds its head moved, the batch planned on it re-links after it, in order', async () => {
  const db = memoryStore();
  const { store, held } = heldStore(db);
  const committer = new GroupCommitter(store, { retry: FAST_RETRY, maxInFlight: 2 });
  await committer.append(input('t', 1));
  const a = committer.append(input('t', 2));
  await turns();
  const b = committer.append(input('t', 3));
  await turns();
  expect(held).toHaveLength(2);
  // Another process (its own committer: its head is unknown to it, so it locks) appends meanwhile.
  await new GroupCommitter(db.store, { retry: FAST_RETRY }).append(input('t', 99));
  held.splice(0).forEach((release) => release());
  // Neither statement wrote; the locked path linked a, then b, after the other process's event.
  expect((await a).event.seq).toBe(3);
  expect((await b).event.seq).toBe(4);
  expect(db.statements).toEqual([[], []]);
  const chain = expectLinked(db, 't', 4);
  expect(chain.map((e) => e.eventDataText)).toEqual(['{"n":1}', '{"n":99}', '{"n":2}', '{"n":3}']);
});

it('returns the original event for a repeated idempotency key, within and across batches', async () => {
  const db = memoryStore();
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY });
  const burst = await Promise.all([1, 2, 3].map(() => committer.append(input('t', 1, { idempotencyKey: 'k' }))));
  expect(new Set(burst.map((r) => r.event.id)).size).toBe(1);
  expect(burst.filter((r) => r.replayed)).toHaveLength(2);
  const later = await committer.append(input('t', 2, { idempotencyKey: 'k' }));
  expect(later).toMatchObject({ replayed: true, event: { id: burst[0]!.event.id } });
  // Same key in another tenant is another event.
  expect((await committer.append(input('u', 1, { idempotencyKey: 'k' }))).replayed).toBe(false);
  expect(db.events).toHaveLength(2);
});

it('appends keyed events in one statement once the head is known; a stored key goes the locked way', async () => {
  const db = memoryStore();
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY });
  await committer.append(input('t', 1, { idempotencyKey: 'a' })); // learns the head (locked)
  const b = await committer.append(input('t', 2, { idempotencyKey: 'b' }));
  expect(b).toMatchObject({ replayed: false, event: { seq: 2 } });
  expect(db.statements).toEqual([['t']]);
  // A replay of a stored key: the statement writes nothing, the locked path answers the entry.
  const again = await committer.append(input('t', 3, { idempotencyKey: 'a' }));
  expect(again).toMatchObject({ replayed: true, event: { seq: 1 } });
  expect(db.statements).toEqual([['t'], []]);
  expect(db.events.map((e) => e.idempotencyKey)).toEqual(['a', 'b']);
});

it('retries deadlocks and serialisation failures', async () => {
  let failures = 2;
  const db = memoryStore({
    beforeInsert: () => {
      if (failures-- > 0) throw Object.assign(new Error('deadlock detected'), { code: failures ? '40P01' : '40001' });
    },
  });
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY });
  const r = await committer.append(input('t', 1));
  expect(r.event.seq).toBe(1);
  expect(db.events).toHaveLength(1);
});

it('keeps an event whose commit landed although the connection died (no duplicate on retry)', async () => {
  const db = memoryStore();
  let dropOnce = true;
  const store = strictFake<LedgerStore>({
    appendTransaction: async (work) => {
      const result = await db.store.appendTransaction(work);
      if (dropOnce) {
        dropOnce = false;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      }
      return result;
    },
  });
  const committer = new GroupCommitter(store, { retry: FAST_RETRY });
  const r = await committer.append(input('t', 1));
  expect(db.events).toHaveLength(1);
  expect(r.event.id).toBe(db.events[0]!.id);
});

it('gives up with UnavailableError when the database stays away, writing nothing', async () => {
  const store = strictFake<LedgerStore>({
    appendTransaction: async () => {
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    },
  });
  const committer = new GroupCommitter(store, { retry: FAST_RETRY });
  await expect(committer.append(input('t', 1))).rejects.toBeInstanceOf(UnavailableError);
});

it('fails only the bad event of a batch', async () => {
  const db = memoryStore({
    beforeInsert: (rows) => {
      if (rows.some((r) => r.eventDataText.includes('"bad"')))
        throw Object.assign(new Error('invalid input'), { code: '22P02' });
    },
  });
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY, maxInFlight: 1 });
  const first = committer.append(input('t', 0)); // occupies the committer so the next three form one batch
  const batch = [
    committer.append(input('t', 1)),
    committer.append({ ...input('t', 2), eventDataText: '{"bad":1}' }),
    committer.append(input('t', 3)),
  ];
  await first;
  const settled = await Promise.allSettled(batch);
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // A value PostgreSQL refuses (class 22) is the client's input: a 422, not a 500.
  expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(InputError);
  expect(db.events.map((e) => e.seq)).toEqual([1, 2, 3]);
});

it('drain() waits for appends already submitted', async () => {
  const db = memoryStore();
  const committer = new GroupCommitter(db.store, { retry: FAST_RETRY });
  const pending = Promise.all([1, 2, 3].map((n) => committer.append(input('t', n))));
  await committer.drain();
  expect(db.events).toHaveLength(3);
  await pending;
  await committer.drain(); // idle: resolves at once
});
