// The relay's rules against a fake store and a fake ledger: per-tenant order, a failure holds
// back the tenant's later rows (not other tenants'), backoff grows, and the client classifies
// ledger answers as retryable or not.
import {
  createLedgerClient,
  LedgerClientError,
  type LedgerAppendRequest,
  type LedgerClient,
} from '../../../platform/clients/ledger.client';
import { createLogger } from '../../../platform/logging/logger';
import { backoffDelay, startOutboxRelay } from '../../../platform/outbox/outbox-relay';
import type { OutboxRow, OutboxStore, TenantOutbox } from '../../../platform/outbox/outbox.store';
import type { Database } from '../../../platform/db/database';
import { markTracingStarted } from '../../../platform/telemetry/trace-context';

const logger = createLogger('CRITICAL', 'test');

function fakeStore(rows: OutboxRow[]) {
  const delivered: string[] = [];
  const failed: { id: string; delayMs: number }[] = [];
  const dead: string[] = [];
  const store: OutboxStore = {
    async pruneDelivered() {
      return 0;
    },
    async dueTenants() {
      // Tenants whose oldest pending row is due, like the SQL.
      const pending = rows.filter((r) => !delivered.includes(r.id) && !dead.includes(r.id));
      return [...new Set(pending.map((r) => r.tenant_id))].filter((t) => pending.find((r) => r.tenant_id === t)!.due);
    },
    async withTenant(tenantId, _services, work) {
      const outbox: TenantOutbox = {
        async pending(limit) {
          return rows
            .filter((r) => r.tenant_id === tenantId && !delivered.includes(r.id) && !dead.includes(r.id))
            .slice(0, limit);
        },
        async markDelivered(ids) {
          delivered.push(...ids);
        },
        async markFailed(id, delayMs) {
          failed.push({ id, delayMs });
          const row = rows.find((r) => r.id === id)!;
          row.attempts++;
          row.due = false; // backing off
        },
        async markDeadLettered(id) {
          dead.push(id);
        },
      };
      await work(outbox);
      return true;
    },
  };
  return { store, delivered, failed, dead };
}

const row = (id: number, tenant: string): OutboxRow => ({
  id: String(id),
  service: 'identity',
  tenant_id: tenant,
  event_type: 'e',
  event_data: { id },
  user_id: null,
  correlation_id: null,
  description: null,
  idempotency_key: `k-${id}`,
  attempts: 0,
  due: true,
});

it('delivers in id order per tenant; a failing row holds back only its own tenant', async () => {
  const rows = [row(1, 'a'), row(2, 'b'), row(3, 'a'), row(4, 'b'), row(5, 'a')];
  const { store, delivered, failed } = fakeStore(rows);
  const sent: string[] = [];
  let failA = true;
  const ledger: LedgerClient = {
    async append(e: LedgerAppendRequest) {
      if (e.tenant_id === 'a' && failA) throw new LedgerClientError('down', 503, true);
      sent.push(e.idempotency_key!);
      return { id: 'x', chain_hash: 'h', created_at: 't' };
    },
  };
  const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
  await relay.runOnce();
  expect(sent).toEqual(['k-2', 'k-4']);
  expect(failed.map((f) => f.id)).toEqual(['1']);
  failA = false;
  rows[0]!.due = true; // its backoff has passed
  await relay.runOnce();
  await relay.runOnce();
  expect(sent).toEqual(['k-2', 'k-4', 'k-1', 'k-3', 'k-5']);
  expect(delivered.sort()).toEqual(['1', '2', '3', '4', '5']);
  await relay.stop();
});

it("dead-letters an event the ledger refuses as invalid, and delivers the tenant's later ones", async () => {
  const rows = [row(1, 'a'), row(2, 'a'), row(3, 'a')];
  const { store, delivered, failed, dead } = fakeStore(rows);
  const ledger: LedgerClient = {
    async append(e: LedgerAppendRequest) {
      if (e.idempotency_key === 'k-2') throw new LedgerClientError('ledger answered 422', 422, false);
      return { id: 'x', chain_hash: 'h', created_at: 't' };
    },
  };
  const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
  await relay.runOnce();
  expect(delivered).toEqual(['1', '3']);
  expect(dead).toEqual(['2']);
  expect(failed).toEqual([]);
  await relay.stop();
});

it('keeps retrying what configuration can fix (401/403), in order', async () => {
  const rows = [row(1, 'a'), row(2, 'a')];
  const { store, delivered, failed, dead } = fakeStore(rows);
  const ledger: LedgerClient = {
    async append() {
      throw new LedgerClientError('ledger answered 401', 401, false);
    },
  };
  const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
  await relay.runOnce();
  expect(failed.map((f) => f.id)).toEqual(['1']);
  expect(dead).toEqual([]);
  expect(delivered).toEqual([]);
  await relay.stop();
});

describe('batched delivery (appendBatch)', () => {
  const ok = { id: 'x', chain_hash: 'h', created_at: 't', replayed: false };

  it("sends a tenant's due rows in one call, in id order, and stops at a row waiting for its retry", async () => {
    const rows = [row(1, 'a'), row(2, 'b'), row(3, 'a'), row(4, 'a'), row(5, 'a')];
    rows[3]!.due = false;
    const { store, delivered } = fakeStore(rows);
    const calls: string[][] = [];
    const ledger: LedgerClient = {
      async append(e) {
        calls.push([e.idempotency_key!]);
        return ok;
      },
      async appendBatch(events) {
        calls.push(events.map((e) => e.idempotency_key!));
        return events.map(() => ok);
      },
    };
    const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
    await relay.runOnce();
    expect(calls).toEqual([['k-1', 'k-3'], ['k-2']]);
    expect(delivered.sort()).toEqual(['1', '2', '3']);
    await relay.stop();
  });

  it('sends a refused batch again row by row, dead-lettering only the bad row', async () => {
    const rows = [row(1, 'a'), row(2, 'a'), row(3, 'a')];
    const { store, delivered, dead, failed } = fakeStore(rows);
    const ledger: LedgerClient = {
      async append(e) {
        if (e.idempotency_key === 'k-2') throw new LedgerClientError('ledger answered 422', 422, false);
        return ok;
      },
      async appendBatch() {
        throw new LedgerClientError('ledger answered 422', 422, false);
      },
    };
    const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
    await relay.runOnce();
    expect(delivered).toEqual(['1', '3']);
    expect(dead).toEqual(['2']);
    expect(failed).toEqual([]);
    await relay.stop();
  });

  it('backs off the first row when the batch fails in a way a retry can fix, delivering nothing', async () => {
    const rows = [row(1, 'a'), row(2, 'a')];
    const { store, delivered, failed } = fakeStore(rows);
    let single = 0;
    const ledger: LedgerClient = {
      async append() {
        single++;
        return ok;
      },
      async appendBatch() {
        throw new LedgerClientError('ledger answered 503', 503, true);
      },
    };
    const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
    await relay.runOnce();
    expect(failed.map((f) => f.id)).toEqual(['1']);
    expect(delivered).toEqual([]);
    expect(single).toBe(0);
    await relay.stop();
  });

  it("while tracing, carries only the head row's trace in one call (each entry links to its own request)", async () => {
    // Rows of other tests carry no traceparent: one "trace" (none) for all, so this flag leaves them alone.
    markTracingStarted();
    const trace = (t: string) => `00-${t.repeat(32)}-${'1'.repeat(16)}-01`;
    const rows = [row(1, 'a'), row(2, 'a'), row(3, 'a'), row(4, 'a')];
    [rows[0]!.traceparent, rows[1]!.traceparent, rows[2]!.traceparent, rows[3]!.traceparent] = [
      trace('a'),
      trace('a'),
      trace('b'),
      trace('a'),
    ];
    const { store, delivered } = fakeStore(rows);
    const calls: string[][] = [];
    const ledger: LedgerClient = {
      async append(e) {
        calls.push([e.idempotency_key!]);
        return ok;
      },
      async appendBatch(events) {
        calls.push(events.map((e) => e.idempotency_key!));
        return events.map(() => ok);
      },
    };
    const relay = startOutboxRelay({ db: {} as Database, store, ledger, logger, pollMs: 1_000_000 });
    await relay.runOnce();
    await relay.runOnce();
    expect(calls).toEqual([['k-1', 'k-2'], ['k-3'], ['k-4']]);
    expect(delivered).toEqual(['1', '2', '3', '4']);
    await relay.stop();
  });
});

it('backs off exponentially up to the maximum', () => {
  const b = { baseMs: 500, maxMs: 60_000 };
  expect([0, 1, 2, 3, 10].map((n) => backoffDelay(n, b))).toEqual([500, 1000, 2000, 4000, 60_000]);
});

describe('ledger client', () => {
  const answer = (status: number, body: unknown) =>
    (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
  const event: LedgerAppendRequest = { tenant_id: 't', event_type: 'e', event_data: {}, idempotency_key: 'k' };

  it('returns the append result and sends tenant, token and idempotency key', async () => {
    let seen: { url: string; headers: Record<string, string>; body: string } | undefined;
    const client = createLedgerClient({
      baseUrl: 'http://ledger/',
      token: () => 'tok',
      fetch: (async (url: string, init: RequestInit) => {
        seen = { url, headers: init.headers as Record<string, string>, body: String(init.body) };
        return new Response(JSON.stringify({ id: 'i', chain_hash: 'c', created_at: 'd' }), { status: 200 });
      }) as unknown as typeof fetch,
    });
    expect(await client.append(event)).toEqual({ id: 'i', chain_hash: 'c', created_at: 'd' });
    expect(seen!.url).toBe('http://ledger/append');
    expect(seen!.headers).toMatchObject({ authorization: 'Bearer tok', 'x-tenant-id': 't' });
    expect(JSON.parse(seen!.body).idempotency_key).toBe('k');
  });

  it.each([
    [503, true],
    [429, true],
    [500, true],
    [422, false],
    [403, false],
  ])('status %i → retryable %s', async (status, retryable) => {
    const client = createLedgerClient({ baseUrl: 'http://ledger', fetch: answer(status, { detail: 'x' }) });
    await expect(client.append(event)).rejects.toMatchObject({ status, retryable });
  });

  it('treats an unreachable ledger as retryable', async () => {
    const client = createLedgerClient({
      baseUrl: 'http://ledger',
      fetch: (async () => {
        throw new TypeError('fetch failed');
      }) as unknown as typeof fetch,
    });
    await expect(client.append(event)).rejects.toMatchObject({ status: undefined, retryable: true });
  });
});
