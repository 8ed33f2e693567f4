// The group commit's one-statement append is planned once per connection (issue 35), so its
// cached plans must stay index probes however the tables grow: plans made on empty tables are the
// ones a long-lived connection keeps (autovacuum may be off, and nothing re-plans them). PostgreSQL
// only: the plans are read with auto_explain, which PGlite does not ship.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { openPostgres } from '../../../platform/db/postgres';
import { GroupCommitter } from '../../../subgraphs/ledger/ledger-append.service';
import { createLedgerStore } from '../../../subgraphs/ledger/ledger.store';

jest.setTimeout(60_000);

const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('the one-statement append on a fresh database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('keeps index probes for heads and idempotency keys in the plans it caches', async () => {
    // One connection, so auto_explain's settings and the cached plans are the same session's.
    const { pool, sql } = openPostgres(db.config.url!, 1);
    const plans: string[] = [];
    pool.on('connect', (client) => client.on('notice', (n) => plans.push(n.message ?? '')));
    try {
      await sql.exec(
        "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice",
      );
      const committer = new GroupCommitter(createLedgerStore(sql), { maxInFlight: 1 });
      const append = (tenantId: string, key: string | null) =>
        committer.append({
          tenantId,
          eventType: 'rule_execution',
          eventDataText: '{"n":1}',
          userId: null,
          correlationId: null,
          description: null,
          idempotencyKey: key,
          writtenBy: null,
        });
      // The first batch of a tenant takes the locked path; the next ones the one-statement path,
      // ten times: past the five custom plans after which PostgreSQL may keep a generic one.
      await Promise.all([append('a', null), append('b', null)]);
      plans.length = 0;
      for (let i = 0; i < 10; i++) {
        await Promise.all([append('a', randomUUID()), append('b', null), append('b', randomUUID())]);
      }
      const own = plans.filter((p) => /UPDATE ledger_chain_heads|idempotency_key = /.test(p) && !/FOR UPDATE/.test(p));
      expect(own.some((p) => p.includes('ledger_chain_heads_pkey'))).toBe(true);
      expect(own.some((p) => p.includes('ledger_events_tenant_id_idempotency_key_key'))).toBe(true);
      expect(own.filter((p) => p.includes('Seq Scan'))).toEqual([]);
      // Unkeyed appends take no entry in the key index (issue 35): it is partial.
      const predicate = await sql.query<{ p: string }>(
        `SELECT pg_get_expr(indpred, indrelid) AS p FROM pg_index
          WHERE indexrelid = 'ledger_events_tenant_id_idempotency_key_key'::regclass`,
      );
      expect(predicate.rows[0]?.p).toBe('(idempotency_key IS NOT NULL)');
    } finally {
      await pool.end();
    }
  });
});
