// The REST gateway against fake backends, with real HTTP clients: authentication, scopes,
// tenant checks, streaming proxy, timeouts and the circuit breaker, rate limit, CORS, discovery.
import { AccessTokens } from '../../../platform/auth/jwt';
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { deadUrl, fixtureSupergraphFile, startGateway, tokenFor, tokens } from './gateway.support';

jest.setTimeout(60_000);

describe('REST gateway', () => {
  let ledger: FakeBackend;
  let ocr: FakeBackend;
  let hanging: FakeBackend;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let tokenA: string;

  beforeAll(async () => {
    ledger = await startFakeBackend();
    ocr = await startFakeBackend();
    hanging = await startFakeBackend();
    hanging.hang = true;
    const nowhere = await deadUrl();
    gw = await startGateway({
      LEDGER_URL: ledger.url,
      OCR_URL: ocr.url,
      WORKFLOW_URL: hanging.url,
      VALIDATION_URL: nowhere, // nothing listens: not deployed
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: fixtureSupergraphFile(`${nowhere}/graphql`),
      GATEWAY_UPSTREAM_TIMEOUT_MS: '300',
      BREAKER_VOLUME_THRESHOLD: '2',
      BREAKER_RESET_TIMEOUT_MS: '60000',
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
      CORS_ORIGINS: 'https://app.example.com',
    });
    tokenA = await tokenFor('tenant-a');
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([ledger, ocr, hanging].map((b) => b?.close()));
  });

  const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

  it('answers /health without a token', async () => {
    const res = await fetch(`${gw.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'healthy', service: 'gateway' });
  });

  it.each([
    ['no token', undefined],
    ['a malformed token', 'not-a-jwt'],
  ])('refuses %s with 401 in the REST shape', async (_label, token) => {
    const res = await get('/api/v1/ledger/events', token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ detail: expect.any(String) });
    expect(ledger.hits).toBe(0);
  });

  it('refuses an expired token and one signed with another key', async () => {
    const expired = await tokens.issue(
      { username: 'x', tenantId: 'tenant-a', roles: [], scopes: ['read'] },
      Date.now() - 7200_000,
    );
    expect((await get('/api/v1/ledger/events', expired)).status).toBe(401);
    const forged = await new AccessTokens('another-secret-that-is-long-enough-for-hs256-xyz', 3600).issue({
      username: 'x',
      tenantId: 'tenant-a',
      roles: ['admin'],
      scopes: ['admin'],
    });
    expect((await get('/api/v1/ledger/events', forged)).status).toBe(401);
  });

  it('proxies GET /api/v1/ledger/events with the tenant from the token and tracing headers', async () => {
    const res = await get('/api/v1/ledger/events?limit=5', tokenA, {
      'x-correlation-id': 'corr-123',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { path: string; query: Record<string, string>; headers: Record<string, string> };
    expect(echo.path).toBe('/events');
    expect(echo.query).toEqual({ limit: '5', tenant_id: 'tenant-a' });
    expect(echo.headers['x-tenant-id']).toBe('tenant-a');
    expect(echo.headers['x-correlation-id']).toBe('corr-123');
    expect(echo.headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(echo.headers.authorization).toBe(`Bearer ${tokenA}`);
  });

  it('refuses another tenant named in X-Tenant-ID, query or body with 403, unless platform operator', async () => {
    expect((await get('/api/v1/ledger/events', tokenA, { 'x-tenant-id': 'tenant-b' })).status).toBe(403);
    expect((await get('/api/v1/ledger/events?tenant_id=tenant-b', tokenA)).status).toBe(403);
    const post = await fetch(`${gw.url}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'tenant-b', event_type: 'x', event_data: {} }),
    });
    expect(post.status).toBe(403);
    expect(await post.json()).toEqual({ detail: expect.stringMatching(/tenant/) });

    // The default tenant's admin is a tenant admin: no door lets it into another tenant.
    const admin = await tokenFor('default', ['read', 'write', 'admin'], ['admin', 'user']);
    expect((await get('/api/v1/ledger/events?tenant_id=tenant-b', admin)).status).toBe(403);
    expect((await get('/api/v1/ledger/events', admin, { 'x-tenant-id': 'tenant-b' })).status).toBe(403);
    const adminPost = await fetch(`${gw.url}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'tenant-b', event_type: 'x', event_data: {} }),
    });
    expect(adminPost.status).toBe(403);

    const operator = await tokenFor('platform', ['read', 'write', 'admin'], ['platform-admin']);
    const res = await get('/api/v1/ledger/events?tenant_id=tenant-b', operator);
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { headers: Record<string, string> };
    expect(echo.headers['x-tenant-id']).toBe('tenant-b');
  });

  it('needs the write scope for changes', async () => {
    const readOnly = await tokenFor('tenant-a', ['read']);
    const res = await fetch(`${gw.url}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'x', event_data: {} }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: "Scope 'write' required" });
  });

  it('injects the tenant into an append body that names none', async () => {
    const res = await fetch(`${gw.url}/api/v1/ledger/append`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'login', event_data: { ok: true } }),
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { path: string; text: string };
    expect(echo.path).toBe('/append');
    expect(JSON.parse(echo.text)).toEqual({ event_type: 'login', event_data: { ok: true }, tenant_id: 'tenant-a' });
  });

  it('forwards the Idempotency-Key header of an append as it came (the ledger dedupes on it)', async () => {
    const res = await fetch(`${gw.url}/api/v1/ledger/append`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokenA}`,
        'content-type': 'application/json',
        'idempotency-key': 'retry-after-502',
      },
      body: JSON.stringify({ event_type: 'login', event_data: {} }),
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { headers: Record<string, string> };
    expect(echo.headers['idempotency-key']).toBe('retry-after-502');
  });

  it('streams an upload through /api/v1/ocr/* keeping the path remainder', async () => {
    const size = 3 * 1024 * 1024; // larger than the gateway's JSON body limit: only a stream gets through
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(size, 7)], { type: 'application/pdf' }), 'scan.pdf');
    const res = await fetch(`${gw.url}/api/v1/ocr/extract/pdf?lang=eng`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenA}` },
      body: form,
    });
    expect(res.status).toBe(200);
    const echo = (await res.json()) as {
      path: string;
      query: Record<string, string>;
      size: number;
      headers: Record<string, string>;
    };
    expect(echo.path).toBe('/extract/pdf');
    expect(echo.query).toEqual({ lang: 'eng' });
    expect(echo.size).toBeGreaterThan(size);
    expect(echo.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('answers 503 with a clear body for a service that is not deployed', async () => {
    const res = await fetch(`${gw.url}/api/v1/rulepacks/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rule_pack_id: 'p', payload: {} }),
    });
    expect(res.status).toBe(503);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/validation.*not running or not deployed/);
    expect(detail).not.toMatch(/127\.0\.0\.1|http:/); // the backend's internal address stays inside
  });

  it('answers 504 for a hanging backend, then opens its breaker (503) without calling it', async () => {
    const call = () =>
      fetch(`${gw.url}/api/v1/workflows/execute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokenA}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflow_pack_id: 'w', payload: {} }),
      });
    expect((await call()).status).toBe(504);
    expect((await call()).status).toBe(504);
    const hitsBefore = hanging.hits;
    const open = await call();
    expect(open.status).toBe(503);
    expect(((await open.json()) as { detail: string }).detail).toMatch(/circuit breaker open/);
    expect(open.headers.get('retry-after')).toBe('60');
    expect(hanging.hits).toBe(hitsBefore);

    const services = (await (await get('/api/v1/services', tokenA)).json()) as {
      services: { name: string; breaker: string; status: string; version: string | null; url: string }[];
    };
    expect(services.services.find((s) => s.name === 'workflow')?.breaker).toBe('open');
    expect(services.services.find((s) => s.name === 'ledger')).toEqual({
      name: 'ledger',
      url: ledger.url,
      version: '9.9.9',
      status: 'healthy',
      breaker: 'closed',
    });
    expect(services.services.find((s) => s.name === 'validation')?.status).toBe('unreachable');

    // The gateway itself is still healthy; an admin can close the breaker.
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    const admin = await tokenFor('default', ['read', 'write', 'admin'], ['admin']);
    expect(
      (
        await fetch(`${gw.url}/api/v1/services/workflow/breaker/reset`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokenA}` },
        })
      ).status,
    ).toBe(403);
    const reset = await fetch(`${gw.url}/api/v1/services/workflow/breaker/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(await reset.json()).toEqual({ name: 'workflow', breaker: 'closed' });
  });

  it('relays an upstream 5xx as it came', async () => {
    const res = await get('/api/v1/ocr/fail', tokenA);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ detail: 'boom' });
  });

  it('answers 502 in JSON when the upstream drops the connection, and keeps serving', async () => {
    const res = await get('/api/v1/ocr/reset', tokenA);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ detail: expect.any(String) });
    // (OCR's breaker may now be open after this and the earlier 5xx; other backends still answer.)
    expect((await get('/api/v1/ledger/events', tokenA)).status).toBe(200);
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const ok = await fetch(`${gw.url}/api/v1/ledger/events`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await fetch(`${gw.url}/api/v1/ledger/events`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'GET' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('outside production, a frontend dev server on any localhost port is allowed without configuration', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://localhost']) {
      const res = await fetch(`${gw.url}/graphql`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect({ origin, allowed: res.headers.get('access-control-allow-origin') }).toEqual({ origin, allowed: origin });
    }
    for (const origin of ['http://localhost.evil.com', 'https://localhost:5173', 'http://10.0.0.1:3000']) {
      const res = await fetch(`${gw.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect({ origin, allowed: res.headers.get('access-control-allow-origin') }).toEqual({ origin, allowed: null });
    }
  });
});

describe('CORS in production', () => {
  it('allows only CORS_ORIGINS, no localhost default', async () => {
    const gw = await startGateway({
      NODE_ENV: 'production',
      CORS_ORIGINS: 'https://app.example.com',
      SUPERGRAPH_PATH: fixtureSupergraphFile('http://127.0.0.1:9/graphql'),
    });
    try {
      const local = await fetch(`${gw.url}/api/v1/services`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET' },
      });
      expect(local.headers.get('access-control-allow-origin')).toBeNull();
      const listed = await fetch(`${gw.url}/api/v1/services`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      });
      expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    } finally {
      await gw.close();
    }
  });
});
