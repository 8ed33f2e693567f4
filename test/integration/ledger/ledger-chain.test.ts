// The chain on a real database (PGlite, or PostgreSQL with DATABASE_URL): hashes round-trip
// through storage, concurrent writers never fork a chain (two independent connections pools on
// PostgreSQL stand in for two ledger processes), a row edited behind the ledger's back is found,
// and the append-only trigger holds.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { openDatabase, type Database } from '../../../platform/db/database';
import type { LedgerService } from '../../../subgraphs/ledger/ledger.service';
import { createLedgerModule } from '../../../subgraphs/ledger/ledger.module';
import { createLedgerStore } from '../../../subgraphs/ledger/ledger.store';
import { verifyTenantChain } from '../../../subgraphs/ledger/ledger-verify.service';

// Starting a database and a service can take seconds on a busy CI machine.
jest.setTimeout(60_000);

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const anon = { correlationId: 'test' };

function ledgerOn(db: Database): LedgerService {
  return createLedgerModule(db, () => {}).service;
}

let db: TestDatabase;
let ledger: LedgerService;

beforeAll(async () => {
  db = await createTestDatabase();
  ledger = ledgerOn(db);
});
afterAll(async () => db?.drop());

describe('hashes survive storage exactly', () => {
  const tricky: Record<string, unknown>[] = [
    { zeta: 1, alpha: { é: 'ünïcødé ✓ 日本語 🚀', b: [3, 2, 1], a: null } },
    // eslint-disable-next-line no-loss-of-precision -- a number past 2^53 is the case under test
    { big: 12345678901234567890, float: 0.1, tiny: 1e-7, exp: 1e21, neg: -0.0, int: 42, half: 2.5 },
    { nested: { deep: { deeper: { list: [{ y: 2, x: 1 }, [], {}] } } }, 'quote"key': 'line\nbreak\ttab\u0001' },
    { '': 'empty key', '\u20ac': 'euro', '\ud83d\ude00': 'surrogate pair key', '1': 'digit' },
  ];

  it.each(tricky.map((d, i) => [i, d]))(
    'event_data #%s: stored text is canonical and recomputes the same hashes',
    async (_i, data) => {
      const { event } = await ledger.append(anon, {
        tenantId: 'round-trip',
        eventType: 'rag_query',
        eventData: data as Record<string, unknown>,
        userId: 'ü-user',
      });
      const listed = await ledger.listEvents(anon, {
        tenantId: 'round-trip',
        filter: {},
        limit: 1,
        offset: event.seq - 1,
      });
      const stored = listed.events[0]!;
      expect(stored.eventDataText).toBe(canonicalize(data));
      // The spec's rule, computed from what the API returns, with the library doing all the canonicalising.
      const content = sha(
        canonicalize({
          tenant_id: 'round-trip',
          event_type: 'rag_query',
          event_data: JSON.parse(stored.eventDataText),
          user_id: 'ü-user',
          created_at: stored.createdAt,
        })!,
      );
      expect(stored.contentHash).toBe(content);
      expect(stored.chainHash).toBe(sha(content + stored.previousHash));
    },
  );

  it('verifies the whole tricky chain', async () => {
    expect(await ledger.verify(anon, { tenantId: 'round-trip' })).toEqual({
      valid: true,
      totalEvents: tricky.length,
      error: null,
    });
  });
});

describe('concurrent appends', () => {
  it('one tenant from many concurrent callers: contiguous seq, strictly increasing created_at, valid chain', async () => {
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        ledger.append(anon, { tenantId: 'busy', eventType: 'e', eventData: { i } }),
      ),
    );
    const page = await ledger.listEvents(anon, { tenantId: 'busy', filter: {}, limit: 1000, offset: 0 });
    expect(page.total).toBe(200);
    expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    for (let i = 1; i < page.events.length; i++) {
      expect(page.events[i]!.createdAt > page.events[i - 1]!.createdAt).toBe(true);
      expect(page.events[i]!.previousHash).toBe(page.events[i - 1]!.chainHash);
    }
    expect((await ledger.verify(anon, { tenantId: 'busy' })).valid).toBe(true);
  });

  it("two independent ledgers on one database never fork a tenant's chain", async () => {
    // On PostgreSQL the second is its own connection pool (as a second process would be); PGlite
    // is single-process, so there the two share the connection.
    const other = db.kind === 'postgres' ? await openDatabase(db.config, { migrate: false }) : db;
    try {
      const second = ledgerOn(other);
      const writes = [];
      for (let i = 0; i < 150; i++) {
        writes.push(ledger.append(anon, { tenantId: 'shared', eventType: 'a', eventData: { i } }));
        writes.push(second.append(anon, { tenantId: 'shared', eventType: 'b', eventData: { i } }));
        writes.push(second.append(anon, { tenantId: `other-${i % 5}`, eventType: 'c', eventData: { i } }));
      }
      const results = await Promise.all(writes);
      expect(new Set(results.map((r) => r.event.chainHash)).size).toBe(results.length);
      expect(await ledger.verify(anon, { tenantId: 'shared' })).toEqual({ valid: true, totalEvents: 300, error: null });
      for (let t = 0; t < 5; t++) expect((await second.verify(anon, { tenantId: `other-${t}` })).totalEvents).toBe(30);
      // Taking turns: each append finds the head moved by the other ledger since its own last
      // write, so the one-statement path must write nothing and the locked path link it.
      for (let i = 0; i < 10; i++) {
        const a = await ledger.append(anon, { tenantId: 'shared', eventType: 'turn-a', eventData: { i } });
        const b = await second.append(anon, { tenantId: 'shared', eventType: 'turn-b', eventData: { i } });
        expect(b.event.seq).toBe(a.event.seq + 1);
        expect(b.event.previousHash).toBe(a.event.chainHash);
      }
      expect(await second.verify(anon, { tenantId: 'shared' })).toEqual({ valid: true, totalEvents: 320, error: null });
    } finally {
      if (other !== db) await other.close();
    }
  });
});

describe('tampering', () => {
  async function tamper(sql: string, params: unknown[]) {
    // Test only: lift the append-only trigger for one statement, as an attacker with DB access could.
    await db.sql.transaction(async (tx) => {
      await tx.exec('ALTER TABLE ledger_events DISABLE TRIGGER ledger_events_no_update_or_delete');
      await tx.query(sql, params);
      await tx.exec('ALTER TABLE ledger_events ENABLE TRIGGER ledger_events_no_update_or_delete');
    });
  }

  it('the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    await ledger.append(anon, { tenantId: 'locked', eventType: 'x', eventData: {} });
    await expect(db.sql.query(`UPDATE ledger_events SET description = 'x' WHERE tenant_id = 'locked'`)).rejects.toThrow(
      /append-only/,
    );
    await expect(db.sql.query(`DELETE FROM ledger_events WHERE tenant_id = 'locked'`)).rejects.toThrow(/append-only/);
    await expect(db.sql.exec('TRUNCATE ledger_events')).rejects.toThrow(/append-only/);
  });

  async function chainOf(tenant: string, n: number) {
    for (let i = 0; i < n; i++)
      await ledger.append(anon, { tenantId: tenant, eventType: 'audit', eventData: { i }, userId: 'u' });
  }

  it('an edited event_data is reported as a content_hash mismatch at that event', async () => {
    await chainOf('tamper-data', 5);
    await tamper(`UPDATE ledger_events SET event_data = '{"i":99}' WHERE tenant_id = $1 AND seq = 3`, ['tamper-data']);
    const r = await ledger.verify(anon, { tenantId: 'tamper-data' });
    expect(r.valid).toBe(false);
    expect(r.totalEvents).toBe(2);
    expect(r.error).toMatch(/^Event 3: content_hash mismatch/);
  });

  it('an edited previous_hash is reported as a previous_hash mismatch', async () => {
    await chainOf('tamper-link', 4);
    await tamper(`UPDATE ledger_events SET previous_hash = repeat('a', 64) WHERE tenant_id = $1 AND seq = 2`, [
      'tamper-link',
    ]);
    const r = await ledger.verify(anon, { tenantId: 'tamper-link' });
    expect(r).toMatchObject({ valid: false, totalEvents: 1 });
    expect(r.error).toMatch(/^Event 2: previous_hash mismatch/);
  });

  it('an edited chain_hash is reported as a chain_hash mismatch', async () => {
    await chainOf('tamper-chain', 3);
    await tamper(`UPDATE ledger_events SET chain_hash = repeat('b', 64) WHERE tenant_id = $1 AND seq = 3`, [
      'tamper-chain',
    ]);
    const r = await ledger.verify(anon, { tenantId: 'tamper-chain' });
    expect(r.error).toMatch(/^Event 3: chain_hash mismatch/);
  });

  it('a deleted event (middle or end) is found', async () => {
    await chainOf('tamper-gap', 4);
    await tamper('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq = 2', ['tamper-gap']);
    expect((await ledger.verify(anon, { tenantId: 'tamper-gap' })).error).toMatch(/^Event 2: missing/);
    await chainOf('tamper-tail', 3);
    await tamper('DELETE FROM ledger_events WHERE tenant_id = $1 AND seq = 3', ['tamper-tail']);
    const tail = await ledger.verify(anon, { tenantId: 'tamper-tail' });
    expect(tail).toMatchObject({ valid: false, totalEvents: 2 });
    expect(tail.error).toMatch(/^Event 3: missing/);
  });

  it('verifying every tenant names the broken tenant; single-entry verification pinpoints the row', async () => {
    const all = await ledger.verify(anon, {});
    expect(all.valid).toBe(false);
    expect(all.error).toMatch(/^Tenant tamper-/);
    const [third] = (await ledger.listEvents(anon, { tenantId: 'tamper-data', filter: {}, limit: 1, offset: 2 }))
      .events;
    const entry = await ledger.verifyEntry(anon, { tenantId: 'tamper-data', entryId: third!.id });
    expect(entry.valid).toBe(false);
    expect(entry.contentHash.valid).toBe(false);
    expect(entry.previousHash.valid).toBe(true);
  });

  it('verification pages through long chains (page boundaries included)', async () => {
    await chainOf('paged', 23);
    const store = createLedgerStore(db.sql);
    expect(await verifyTenantChain(store, 'paged', 5)).toEqual({ valid: true, totalEvents: 23, error: null });
    expect(await verifyTenantChain(store, 'paged', 23)).toEqual({ valid: true, totalEvents: 23, error: null });
  });

  it('the json_agg page path reads exactly what the row path reads', async () => {
    const rows = createLedgerStore(db.sql);
    const json = createLedgerStore(db.sql, { pageAsJson: true });
    for (const tenant of ['round-trip', 'paged']) {
      expect(await json.chainPage(tenant, 0, 100)).toEqual(await rows.chainPage(tenant, 0, 100));
      expect(await verifyTenantChain(json, tenant, 4)).toEqual(await verifyTenantChain(rows, tenant, 4));
    }
    expect(await json.chainPage('no-such-tenant', 0, 10)).toEqual([]);
    expect((await verifyTenantChain(json, 'tamper-data', 2)).error).toMatch(/^Event 3: content_hash mismatch/);
  });
});
