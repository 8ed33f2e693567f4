// The ledger's REST door over real HTTP: append, query, verify, export, the /v1/ledger set,
// bad input in FastAPI's shape, and tenant isolation.
import { ledgerService } from '../../../services/ledger';
import { startServices, type Harness } from '../../support/service-harness';

// Starting a database and a service can take seconds on a busy CI machine.
jest.setTimeout(60_000);

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startServices([ledgerService], { LEDGER_REQUIRE_AUTH: 'false' }); // anonymous gateway traffic, as the spec's default
  url = h.services.ledger!.url;
});
afterAll(async () => h?.close());

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { headers });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* csv */
  }
  return { status: res.status, body, headers: res.headers };
}

describe('append and read back', () => {
  it('appends, lists with filters and verifies', async () => {
    const a = await post('/append', {
      tenant_id: 't-rest',
      event_type: 'rule_execution',
      event_data: { rulepack_id: 'p1', rules_executed: 3 },
      user_id: 'alice',
      correlation_id: 'c1',
    });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['chain_hash', 'created_at', 'id']);
    expect(a.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    expect(a.body.chain_hash).toMatch(/^[0-9a-f]{64}$/);
    await post('/append', {
      tenant_id: 't-rest',
      event_type: 'rag_query',
      event_data: { query: 'q', results_count: 1 },
      user_id: 'bob',
    });

    const all = await get('/events?tenant_id=t-rest');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.limit).toBe(100);
    expect(all.body.offset).toBe(0);
    expect(all.body.events.map((e: any) => e.seq)).toEqual([1, 2]);
    expect(all.body.events[0]).toMatchObject({
      id: a.body.id,
      chain_hash: a.body.chain_hash,
      created_at: a.body.created_at,
      event_data: { rulepack_id: 'p1', rules_executed: 3 },
      previous_hash: '0'.repeat(64),
    });
    expect(all.body.events[1].previous_hash).toBe(a.body.chain_hash);

    const byUser = await get('/events?tenant_id=t-rest&user_id=bob');
    expect(byUser.body.total).toBe(1);
    expect(byUser.body.events[0].event_type).toBe('rag_query');
    const byCorr = await get('/events?tenant_id=t-rest&correlation_id=c1&event_type=rule_execution');
    expect(byCorr.body.events).toHaveLength(1);
    const future = await get(`/events?tenant_id=t-rest&start_time=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
    expect(future.body).toMatchObject({ total: 0, events: [] });
    const upTo = await get(`/events?tenant_id=t-rest&end_time=${encodeURIComponent(all.body.events[1].created_at)}`);
    expect(upTo.body.events.map((e: any) => e.seq)).toEqual([1]);
    const paged = await get('/events?tenant_id=t-rest&limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(paged.body.events[0].seq).toBe(2);

    const v = await get('/verify?tenant_id=t-rest');
    expect(v.body).toEqual({ valid: true, total_events: 2, error: null });
  });

  it('replays an idempotent append instead of adding a second event', async () => {
    const body = { tenant_id: 't-idem', event_type: 'x', event_data: { n: 1 }, idempotency_key: 'k-1' };
    const first = await post('/append', body);
    const again = await post('/append', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // Concurrent retries with one key land in one group commit: still one event.
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => post('/append', { ...body, idempotency_key: 'k-2' })),
    );
    expect(new Set(burst.map((r) => r.body.id)).size).toBe(1);
    expect((await get('/events?tenant_id=t-idem')).body.total).toBe(2);
  });

  it('takes the key as the Idempotency-Key header too: a retry after a 502 with the header stores the event once', async () => {
    const body = { tenant_id: 't-idem-h', event_type: 'x', event_data: { n: 1 } };
    const first = await post('/append', body, { 'idempotency-key': 'h-1' });
    expect(first.status).toBe(200);
    const retry = await post('/append', body, { 'idempotency-key': 'h-1' });
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // The same key in the body and the header is one key, on both append routes.
    const both = await post('/v1/ledger/append', { ...body, idempotency_key: 'h-1' }, { 'idempotency-key': 'h-1' });
    expect(both.body).toEqual(first.body);
    const bodyOnly = await post('/append', { ...body, idempotency_key: 'h-1' });
    expect(bodyOnly.body).toEqual(first.body);
    expect((await get('/events?tenant_id=t-idem-h')).body.total).toBe(1);

    const differ = await post('/append', { ...body, idempotency_key: 'h-2' }, { 'idempotency-key': 'h-3' });
    expect(differ.status).toBe(422);
    expect(differ.body).toEqual({
      detail: [{ loc: ['header', 'idempotency-key'], msg: expect.stringContaining('differ'), type: 'value_error' }],
    });
    const v1Differ = await post('/v1/ledger/append', { ...body, idempotency_key: 'h-2' }, { 'idempotency-key': 'h-3' });
    expect(v1Differ.status).toBe(422);
    const empty = await post('/append', body, { 'idempotency-key': '' });
    expect(empty.body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'string_too_short' });
    const long = await post('/append', body, { 'idempotency-key': 'k'.repeat(256) });
    expect(long.body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'string_too_long' });
    // Nothing refused was stored.
    expect((await get('/events?tenant_id=t-idem-h')).body.total).toBe(1);
  });

  it('ignores unknown members as FastAPI does: neither stored nor echoed', async () => {
    const a = await post('/append', {
      tenant_id: 't-extra',
      event_type: 'x',
      event_data: { n: 1 },
      signature: 'sig-zq81',
      priority: 'high',
    });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual(['chain_hash', 'created_at', 'id']);
    const events = await get('/events?tenant_id=t-extra');
    expect(events.body.events[0].event_data).toEqual({ n: 1 });
    expect(JSON.stringify(events.body)).not.toContain('sig-zq81');
    expect((await get('/verify?tenant_id=t-extra')).body.valid).toBe(true);
  });

  it('serves the /v1/ledger set', async () => {
    const a = await post('/v1/ledger/append', {
      tenant_id: 't-v1',
      event_type: 'workflow_execution',
      event_data: { workflow_id: 'w1', status: 'completed' },
      user_id: 'carol',
      correlation_id: 'corr-9',
    });
    expect(a.status).toBe(200);
    const b = await post('/v1/ledger/append', {
      tenant_id: 't-v1',
      event_type: 'rule_execution',
      event_data: { result: 'ok' },
      user_id: 'dave',
    });
    const entry = await get(`/v1/ledger/verify/${b.body.id}?tenant_id=t-v1`);
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({
      entry_id: b.body.id,
      seq: 2,
      valid: true,
      previous_hash: {
        stored: a.body.chain_hash,
        expected: a.body.chain_hash,
        previous_entry_id: a.body.id,
        valid: true,
      },
    });
    expect(entry.body.chain_hash.recomputed).toBe(b.body.chain_hash);
    expect((await get(`/v1/ledger/verify/${b.body.id}?tenant_id=other`)).status).toBe(404);
    expect((await get('/v1/ledger/verify/not-a-uuid?tenant_id=t-v1')).status).toBe(404);

    const hist = await get('/v1/ledger/history?tenant_id=t-v1');
    expect(hist.body.events.map((e: any) => e.seq)).toEqual([2, 1]);
    expect((await get('/v1/ledger/history?tenant_id=t-v1&correlation_id=corr-9')).body.total).toBe(1);

    const report = await post('/v1/ledger/audit-report', { tenant_id: 't-v1', start_time: '2000-01-01T00:00:00Z' });
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      tenant_id: 't-v1',
      total_events: 2,
      counts_by_event_type: { workflow_execution: 1, rule_execution: 1 },
      counts_by_user: { carol: 1, dave: 1 },
      chain: { valid: true, total_events: 2, error: null },
      first_hash: a.body.chain_hash,
      last_hash: b.body.chain_hash,
    });
  });
});

describe('export', () => {
  it('streams CSV with the spec header, RFC 4180 quoting and neutralised formulas', async () => {
    await post('/append', {
      tenant_id: 't-csv',
      event_type: '=cmd|calc',
      event_data: {},
      user_id: '+1',
      correlation_id: '@x',
      description: 'say "hi", then\nnew line',
    });
    await post('/append', { tenant_id: 't-csv', event_type: 'ok', event_data: {}, description: '-2' });
    const res = await fetch(`${url}/export?tenant_id=t-csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await res.text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,tenant_id,event_type,created_at,user_id,correlation_id,description,chain_hash');
    expect(text).toContain(`,'=cmd|calc,`);
    expect(text).toContain(`,'+1,'@x,"say ""hi"", then\nnew line",`);
    expect(text).toContain(`,'-2,`);
    const typed = await get('/export?tenant_id=t-csv&event_type=ok');
    expect(typed.body.trim().split('\r\n')).toHaveLength(2);
  });
});

describe('bad input', () => {
  const valid = { tenant_id: 't-bad', event_type: 'x', event_data: { a: 1 } };
  it.each([
    ['missing tenant_id', { event_type: 'x', event_data: {} }, ['body', 'tenant_id'], 'missing'],
    ['missing event_type', { tenant_id: 't', event_data: {} }, ['body', 'event_type'], 'missing'],
    ['missing event_data', { tenant_id: 't', event_type: 'x' }, ['body', 'event_data'], 'missing'],
    ['event_data an array', { ...valid, event_data: [1] }, ['body', 'event_data'], 'dict_type'],
    ['event_data a string', { ...valid, event_data: 'x' }, ['body', 'event_data'], 'dict_type'],
    ['tenant_id too long', { ...valid, tenant_id: 'a'.repeat(256) }, ['body', 'tenant_id'], 'string_too_long'],
    ['event_type too long', { ...valid, event_type: 'a'.repeat(256) }, ['body', 'event_type'], 'string_too_long'],
    ['user_id too long', { ...valid, user_id: 'a'.repeat(256) }, ['body', 'user_id'], 'string_too_long'],
    [
      'correlation_id too long',
      { ...valid, correlation_id: 'a'.repeat(256) },
      ['body', 'correlation_id'],
      'string_too_long',
    ],
    ['user_id a number', { ...valid, user_id: 5 }, ['body', 'user_id'], 'string_type'],
  ])('%s → 422', async (_name, body, loc, type) => {
    const r = await post('/append', body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  it('invalid JSON, non-UTF-8 bytes and non-finite numbers → 422, nothing written', async () => {
    expect((await post('/append', '{"tenant_id": "t-bad",')).body.detail[0].type).toBe('json_invalid');
    const bad = Buffer.concat([
      Buffer.from('{"tenant_id":"t-bad","event_type":"x","event_data":{"s":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
    const res = await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: bad,
    });
    expect(res.status).toBe(422);
    const big = await post('/append', '{"tenant_id":"t-bad","event_type":"x","event_data":{"n":1e400}}');
    expect(big.status).toBe(422);
    expect(big.body.detail[0].loc).toEqual(['body', 'event_data', 'n']);
    expect((await get('/events?tenant_id=t-bad')).body.total).toBe(0);
  });

  it.each(['-1', '0', '1001', 'abc'])('limit=%s → 422', async (limit) => {
    const r = await get(`/events?tenant_id=t&limit=${limit}`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('offset negative and a bad start_time → 422', async () => {
    expect((await get('/events?tenant_id=t&offset=-1')).status).toBe(422);
    expect((await get('/events?tenant_id=t&start_time=yesterday')).status).toBe(422);
  });

  it('no tenant at all → 422 on /events', async () => {
    const r = await get('/events');
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', 'tenant_id']);
  });
});

describe('tenant isolation without a token (gateway sets X-Tenant-ID)', () => {
  beforeAll(async () => {
    await post('/append', { tenant_id: 'iso-a', event_type: 'secret', event_data: { s: 'a-only' } });
  });
  it("a tenant asking for another tenant's events, export or verification gets 403", async () => {
    const h = { 'x-tenant-id': 'iso-b' };
    for (const path of [
      '/events?tenant_id=iso-a',
      '/export?tenant_id=iso-a',
      '/verify?tenant_id=iso-a',
      '/v1/ledger/history?tenant_id=iso-a',
    ]) {
      const r = await get(path, h);
      expect(r.status).toBe(403);
      expect(JSON.stringify(r.body)).not.toContain('a-only');
    }
    expect((await post('/append', { tenant_id: 'iso-a', event_type: 'x', event_data: {} }, h)).status).toBe(403);
    expect((await post('/v1/ledger/audit-report', { tenant_id: 'iso-a' }, h)).status).toBe(403);
  });
  it('the header alone scopes a request to its tenant', async () => {
    const r = await get('/events', { 'x-tenant-id': 'iso-b' });
    expect(r.body).toMatchObject({ total: 0, events: [] });
    const a = await get('/events', { 'x-tenant-id': 'iso-a' });
    expect(a.body.total).toBe(1);
  });
});

describe('POST /v1/ledger/append/batch', () => {
  const ev = (key: string, data: object = { k: key }) => ({
    tenant_id: 't-batch',
    event_type: 'workflow_execution',
    event_data: data,
    idempotency_key: key,
  });

  it('appends the events in the order sent, one result each, and replays a batch sent again', async () => {
    const first = await post('/v1/ledger/append/batch', { events: [ev('b1'), ev('b2'), ev('b3')] });
    expect(first.status).toBe(200);
    expect(first.body.results).toHaveLength(3);
    expect(first.body.results.map((r: any) => r.replayed)).toEqual([false, false, false]);
    const listed = await get('/events?tenant_id=t-batch');
    expect(listed.body.events.map((e: any) => [e.seq, e.event_data.k, e.id])).toEqual(
      first.body.results.map((r: any, i: number) => [i + 1, `b${i + 1}`, r.id]),
    );
    // Sent again after a failure part-way: the stored ones answer as replays, the rest are appended.
    const again = await post('/v1/ledger/append/batch', { events: [ev('b3'), ev('b4')] });
    expect(again.status).toBe(200);
    expect(again.body.results[0]).toMatchObject({ id: first.body.results[2].id, replayed: true });
    expect(again.body.results[1].replayed).toBe(false);
    expect((await get('/events?tenant_id=t-batch')).body.total).toBe(4);
    expect((await get('/verify?tenant_id=t-batch')).body.valid).toBe(true);
  });

  it('refuses the whole call with 422 when one event is bad or has no idempotency key, appending nothing', async () => {
    const noKey = { ...ev('n1'), idempotency_key: undefined };
    const r = await post('/v1/ledger/append/batch', { events: [ev('n0'), noKey] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'events', 1, 'idempotencyKey']);
    const bad = await post('/v1/ledger/append/batch', { events: [ev('n2'), { ...ev('n3'), event_data: 'x' }] });
    expect(bad.status).toBe(422);
    expect((await post('/v1/ledger/append/batch', { events: [] })).status).toBe(422);
    const listed = await get('/events?tenant_id=t-batch');
    expect(listed.body.events.map((e: any) => e.event_data.k)).not.toEqual(expect.arrayContaining(['n0', 'n2']));
  });

  it("refuses another tenant's events with 403", async () => {
    const r = await post(
      '/v1/ledger/append/batch',
      { events: [{ ...ev('x1'), tenant_id: 'iso-a' }] },
      { 'x-tenant-id': 'iso-b' },
    );
    expect(r.status).toBe(403);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz with a database check', async () => {
    expect((await get('/healthz')).status).toBe(200);
    const r = await get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body.checks.database).toBe('ok');
  });
  it('documents the routes in OpenAPI', async () => {
    const doc = (await get('/docs/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/append',
        '/verify',
        '/events',
        '/export',
        '/v1/ledger/append',
        '/v1/ledger/history',
        '/v1/ledger/audit-report',
        '/v1/ledger/verify/{entry_id}',
      ]),
    );
  });
});

describe('values the database cannot store', () => {
  it('a lone surrogate in event_data is stored as its JSON escape or refused with 422, never a 500 or a broken chain', async () => {
    const r = await post('/append', '{"tenant_id":"t-sur","event_type":"x","event_data":{"s":"\\ud800 lone"}}');
    expect([200, 422]).toContain(r.status);
    expect((await get('/verify?tenant_id=t-sur')).body.valid).toBe(true);
  });
});
