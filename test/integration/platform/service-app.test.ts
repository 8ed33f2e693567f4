// The HTTP bootstrap every service shares, exercised over real HTTP.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { AuthenticationError, ForbiddenError } from '../../../platform/errors/domain-errors';
import { createServiceApp } from '../../../platform/http/service-app';
import { strictMembers } from '../../../platform/http/validation';

const json = (res: Response): Promise<any> => res.json();

async function start(
  options: { ready?: () => Promise<boolean>; slowStarted?: () => void } = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const config = loadPlatformConfig({ LOG_LEVEL: 'ERROR', BODY_LIMIT_BYTES: '2048' });
  const app = await createServiceApp({
    name: 'probe',
    title: 'Probe',
    version: '9.9.9',
    config,
    health: { readiness: { database: options.ready ?? (async () => true) } },
  });
  app.post(
    '/items',
    {
      schema: {
        body: Type.Object(
          {
            name: Type.String({ maxLength: 10 }),
            count: Type.Integer(),
            tags: Type.Optional(Type.Array(Type.String())),
          },
          { additionalProperties: false },
        ),
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          since: Type.Optional(Type.String({ format: 'date-time' })),
        }),
      },
    },
    async (request) => ({ received: request.body, query: request.query }),
  );
  // A signed artifact's door: unknown members refused, not dropped.
  app.post(
    '/strict-items',
    {
      schema: {
        body: strictMembers(
          Type.Object(
            {
              name: Type.String(),
              inner: Type.Optional(Type.Object({ a: Type.Integer() }, { additionalProperties: false })),
              open: Type.Optional(Type.Object({}, { additionalProperties: true })),
            },
            { additionalProperties: false },
          ),
        ),
      },
    },
    async (request) => ({ received: request.body }),
  );
  app.post(
    '/nested',
    {
      schema: {
        body: Type.Object(
          {
            inner: Type.Object({ a: Type.Integer() }, { additionalProperties: false }),
            open: Type.Optional(Type.Object({}, { additionalProperties: true })),
          },
          { additionalProperties: false },
        ),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
      },
    },
    async (request) => ({ received: request.body, query: request.query }),
  );
  app.get('/secret', async () => {
    throw new AuthenticationError();
  });
  app.get('/admin', async () => {
    throw new ForbiddenError();
  });
  app.get('/boom', async () => {
    throw new Error('database password is hunter2');
  });
  app.get('/db-down', async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  });
  // Slow work (the 300 ms is the behaviour under test: a request still running when close begins).
  app.get('/slow', async () => {
    options.slowStarted?.();
    await new Promise((r) => setTimeout(r, 300));
    return { done: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

describe('service HTTP bootstrap', () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => ({ app, url } = await start()));
  afterAll(() => app.close());

  const post = (body: string, contentType = 'application/json') =>
    fetch(`${url}/items`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('accepts a valid body', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 2 }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ received: { name: 'a', count: 2 }, query: {} });
  });

  it("answers malformed JSON with FastAPI's 422 json_invalid", async () => {
    const res = await post('{"name": ');
    expect(res.status).toBe(422);
    expect(await json(res)).toEqual({ detail: [{ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' }] });
  });

  it('refuses bytes that are not UTF-8 and prototype-poisoning keys with 422', async () => {
    const bad = await fetch(`${url}/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(bad.status).toBe(422);
    expect((await json(bad)).detail[0]).toMatchObject({ loc: ['body', 0], type: 'json_invalid' });
    const poisoned = await post('{"name":"a","count":1,"__proto__":{"admin":true}}');
    expect(poisoned.status).toBe(422);
  });

  it('answers a wrong content type with 422', async () => {
    const res = await post('name=a', 'text/plain');
    expect(res.status).toBe(422);
    expect((await json(res)).detail[0]).toMatchObject({ loc: ['body'] });
  });

  it('reports every missing, mistyped and too-long field', async () => {
    const res = await post(JSON.stringify({ name: 'far-too-long-name', count: '3', extra: 1 }));
    expect(res.status).toBe(422);
    const { detail } = await json(res);
    expect(detail).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at most 10 characters', type: 'string_too_long' },
      { loc: ['body', 'count'], msg: 'Input should be a valid integer', type: 'int_parsing' },
    ]);
    const missing = await post(JSON.stringify({ count: 1 }));
    expect((await json(missing)).detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  });

  it('ignores unknown members as FastAPI does: dropped before the handler, at every depth of a closed object, kept in open ones', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 1, extra: 1, version: 'v9' }));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ received: { name: 'a', count: 1 }, query: {} });
    const nested = await fetch(`${url}/nested?limit=2&unknown=x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inner: { a: 1, b: 2 }, open: { kept: true }, other: [1] }),
    });
    expect(nested.status).toBe(200);
    expect(await json(nested)).toEqual({ received: { inner: { a: 1 }, open: { kept: true } }, query: { limit: 2 } });
  });

  it('refuses unknown members on a strictMembers body with 422 extra_forbidden, at every depth', async () => {
    const res = await fetch(`${url}/strict-items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a', extra: 1, inner: { a: 1, b: 2 }, open: { kept: true } }),
    });
    expect(res.status).toBe(422);
    expect((await json(res)).detail).toEqual([
      { loc: ['body', 'extra'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'inner', 'b'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
    const ok = await fetch(`${url}/strict-items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a', open: { kept: true } }),
    });
    expect(await json(ok)).toEqual({ received: { name: 'a', open: { kept: true } } });
  });

  it('coerces and checks query parameters', async () => {
    const ok = await fetch(`${url}/items?limit=5`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a","count":1}',
    });
    expect((await json(ok)).query).toEqual({ limit: 5 });
    const bad = await fetch(`${url}/items?limit=-1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a","count":1}',
    });
    expect(bad.status).toBe(422);
    expect((await json(bad)).detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'greater_than_equal' });
  });

  it('names format errors as pydantic does', async () => {
    const res = await fetch(`${url}/items?since=yesterday`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a","count":1}',
    });
    expect(res.status).toBe(422);
    expect((await json(res)).detail).toEqual([
      { loc: ['query', 'since'], msg: 'Input should be a valid datetime', type: 'datetime_parsing' },
    ]);
  });

  it('refuses a body over the limit with 413 and keeps serving', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 1, tags: Array(500).fill('xxxxxxxx') }));
    expect(res.status).toBe(413);
    expect(await json(res)).toEqual({ detail: 'Request body too large' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it("writes 401 and 403 in the spec's shapes", async () => {
    const unauth = await fetch(`${url}/secret`);
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe('Bearer');
    expect(await unauth.json()).toEqual({ detail: 'Could not validate credentials' });
    const forbidden = await fetch(`${url}/admin`);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ detail: 'Admin access required' });
  });

  it('never sends 5xx details to the client', async () => {
    const res = await fetch(`${url}/boom`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain('hunter2');
  });

  it('turns a lost database into 503 with Retry-After, for every service', async () => {
    const res = await fetch(`${url}/db-down`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await json(res)).toEqual({ detail: 'Database unavailable, retry shortly' });
  });

  it('echoes a sane correlation id and creates one otherwise', async () => {
    const given = await fetch(`${url}/healthz`, { headers: { 'x-correlation-id': 'abc-123' } });
    expect(given.headers.get('x-correlation-id')).toBe('abc-123');
    const made = await fetch(`${url}/healthz`, { headers: { 'x-correlation-id': 'bad id with spaces' } });
    expect(made.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("serves the health routes and a 404 in FastAPI's shape", async () => {
    for (const path of ['/health', '/healthz', '/livez']) expect((await fetch(url + path)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
    const missing = await fetch(`${url}/nope`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ detail: 'Not Found' });
  });

  it('publishes an OpenAPI 3 document built from the route schemas', async () => {
    const doc = await json(await fetch(`${url}/docs/openapi.json`));
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('9.9.9');
    expect(doc.paths['/items'].post.requestBody.content['application/json'].schema.required).toEqual(['name', 'count']);
  });
});

describe('readiness and graceful shutdown', () => {
  it('reports not ready when a dependency is down', async () => {
    const { app, url } = await start({ ready: async () => false });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await json(res)).toEqual({ status: 'not_ready', checks: { database: 'unavailable' } });
    await app.close();
  });

  it('finishes in-flight requests when closing', async () => {
    let handlerRunning!: () => void;
    const started = new Promise<void>((resolve) => (handlerRunning = resolve));
    const { app, url } = await start({ slowStarted: () => handlerRunning() });
    const inFlight = fetch(`${url}/slow`);
    await started; // the request is inside its handler: close now, mid-request
    const closing = app.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    // The response asks the client to drop the keep-alive connection, so close() does not wait for it.
    expect(res.headers.get('connection')).toBe('close');
    expect(await json(res)).toEqual({ done: true });
    await closing;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
