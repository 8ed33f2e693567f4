// The broker's grouped usage audit on a real database: records that arrive together share one
// statement, every record's usage row and ledger events are committed when its promise resolves
// (the answer waits on it), and a record the database refuses fails alone, not its batch-mates.
import type { Caller } from '../../../platform/auth/caller';
import type { SqlQuery } from '../../../platform/db/sql';
import { groupedUsageAudit, type UsageEvent } from '../../../subgraphs/ai-broker/ai-broker.audit';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const caller = (correlationId: string): Caller =>
  ({
    correlationId,
    auth: { username: 'alice', tenantId: 't1', roles: ['user'], scopes: ['read', 'write'] },
  }) as unknown as Caller;
const event = (redacted: number): UsageEvent => ({
  operation: 'inference',
  status: 'ok',
  model: 'gpt-4',
  provider: 'openai',
  promptTokens: 10,
  completionTokens: 5,
  cost: 0.00045,
  latencyMs: 1.5,
  attempts: [],
  redactions: { input: redacted ? { ssn: redacted } : {}, output: {} },
  redactionMode: 'mask',
  ragChunksUsed: 0,
  ragUnavailable: false,
  templateId: null,
  templateVersion: null,
  detokenized: 0,
});

async function rowsOf(correlationId: string) {
  const usage = await db.sql.query<{ total_tokens: number; cost: string }>(
    `SELECT total_tokens, cost::text AS cost, tenant_id, user_id, operation, model, provider, prompt_tokens,
            completion_tokens, latency_ms, status FROM ai_usage WHERE correlation_id = $1`,
    [correlationId],
  );
  const events = await db.sql.query<{
    event_type: string;
    tenant_id: string;
    service: string;
    event_data: Record<string, unknown>;
  }>(
    'SELECT event_type, tenant_id, service, event_data FROM outbox_events WHERE correlation_id = $1 ORDER BY event_type',
    [correlationId],
  );
  return { usage: usage.rows, events: events.rows };
}

test('records arriving together share statements, and each is committed when it resolves', async () => {
  const statements: number[] = [];
  const counting: SqlQuery = {
    query: (text, params, options) => {
      // The usage rows travel as one JSON parameter.
      statements.push((JSON.parse(params?.[0] as string) as unknown[]).length);
      return db.sql.query(text, params, options);
    },
    exec: (text) => db.sql.exec(text),
  };
  const audit = groupedUsageAudit(counting);
  const ids = Array.from({ length: 20 }, (_, i) => `group-${i}`);
  await Promise.all(
    ids.map(async (id, i) => {
      await audit.record(caller(id), 't1', event(i % 2));
      // Resolved: its rows are there.
      const r = await rowsOf(id);
      expect(r.usage).toEqual([
        {
          total_tokens: 15,
          cost: '0.000450',
          tenant_id: 't1',
          user_id: 'alice',
          operation: 'inference',
          model: 'gpt-4',
          provider: 'openai',
          prompt_tokens: 10,
          completion_tokens: 5,
          latency_ms: 2,
          status: 'ok',
        },
      ]);
      expect(r.events.map((e) => e.event_type)).toEqual(i % 2 ? ['ai_inference', 'ai_redaction'] : ['ai_inference']);
      expect(r.events[0]).toMatchObject({
        tenant_id: 't1',
        service: 'ai-broker',
        event_data: { tokens_used: 15, model: 'gpt-4' },
      });
    }),
  );
  expect(statements.reduce((a, b) => a + b, 0)).toBe(20);
  expect(statements.length).toBeLessThan(20); // grouped: the first alone, the rest together
});

test('a record the database refuses fails alone; its batch-mates commit', async () => {
  const audit = groupedUsageAudit(db.sql);
  const first = audit.record(caller('lone-1'), 't1', event(0));
  const bad = audit.record(caller('x'.repeat(300)), 't1', event(0)); // correlation_id is VARCHAR(255)
  const good = audit.record(caller('lone-2'), 't1', event(1));
  await expect(first).resolves.toBeUndefined();
  await expect(bad).rejects.toThrow();
  await expect(good).resolves.toBeUndefined();
  expect((await rowsOf('lone-2')).events).toHaveLength(2);
  expect((await rowsOf('x'.repeat(300))).usage).toHaveLength(0);
});

test('with two groups in flight (PostgreSQL setting), every record is committed when it resolves', async () => {
  const audit = groupedUsageAudit(db.sql, { maxInFlight: 2 });
  const ids = Array.from({ length: 15 }, (_, i) => `pipelined-${i}`);
  await Promise.all(
    ids.map(async (id, i) => {
      await audit.record(caller(id), 't1', event(i % 3));
      const r = await rowsOf(id);
      expect(r.usage).toHaveLength(1);
      expect(r.events).toHaveLength(i % 3 ? 2 : 1);
    }),
  );
});
