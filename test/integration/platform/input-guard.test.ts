// The kernel's input guard on a real service app over real HTTP: hostile JSON bodies, query
// strings, path parameters and form bodies get FastAPI's 422 naming the field; oversized bodies,
// URLs and headers get 413/414/431 in the `{"detail": ...}` shape, and the service keeps serving.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { createServiceApp } from '../../../platform/http/service-app';

type Json = any;

let app: FastifyInstance;
let url: string;
let port: number;
let handled = 0;
const stages: string[] = [];

beforeAll(async () => {
  const config = loadPlatformConfig({
    LOG_LEVEL: 'ERROR',
    BODY_LIMIT_BYTES: String(2 * 1024 * 1024),
    JSON_MAX_STRING_LENGTH: '100000',
    HTTP_MAX_URL_LENGTH: '4096',
  });
  app = await createServiceApp({ name: 'probe', title: 'Probe', version: '1.0.0', config, health: { readiness: {} } });
  app.post('/append', async (request) => {
    handled += 1;
    return { received: request.body };
  });
  app.post(
    '/token',
    {
      schema: { body: Type.Object({ username: Type.String(), password: Type.String() }) },
    },
    async (request) => ({ form: request.body }),
  );
  app.get('/items/:id', async (request) => ({ params: request.params, query: request.query }));
  app.get(
    '/ordered',
    {
      onRequest: (_request, _reply, done) => {
        stages.push('onRequest');
        done();
      },
      preValidation: (_request, _reply, done) => {
        stages.push('preValidation');
        done();
      },
    },
    async () => ({ stages }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
});
afterAll(() => app.close());

async function postJson(body: string | Buffer): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${url}/append`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

/** Sends raw bytes (what fetch will not: over-long request lines) and reads the answer. */
function rawRequest(request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
  });
}

describe('hostile JSON bodies', () => {
  it('accepts a normal body with astral characters', async () => {
    const res = await postJson(JSON.stringify({ event_data: { emoji: '🚀😀', n: 1.5 } }));
    expect(res).toEqual({ status: 200, body: { received: { event_data: { emoji: '🚀😀', n: 1.5 } } } });
  });

  it('refuses nesting past 64 levels with 422 naming where the limit was crossed', async () => {
    const ok = await postJson('{"event_data":' + '['.repeat(63) + ']'.repeat(63) + '}');
    expect(ok.status).toBe(200);
    const res = await postJson('{"event_data":' + '['.repeat(64) + ']'.repeat(64) + '}');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'event_data', ...Array(63).fill(0)],
          msg: 'JSON nesting should be at most 64 levels deep',
          type: 'json_too_deep',
        },
      ],
    });
  });

  it('refuses a 100,000-level body with 422 while other requests keep being served', async () => {
    const before = handled;
    const deep = '{"event_data":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_001);
    const [res, ...others] = await Promise.all([
      postJson(deep),
      ...Array.from({ length: 5 }, () => fetch(`${url}/healthz`)),
    ]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].type).toBe('json_too_deep');
    expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(handled).toBe(before); // the handler never saw it
  });

  it.each([
    [
      'an escaped lone surrogate',
      '{"event_data":{"a":{"b":"\\ud800"}}}',
      ['body', 'event_data', 'a', 'b'],
      'string_unicode',
    ],
    ['an escaped NUL in a value', '{"event_data":{"a":"x\\u0000"}}', ['body', 'event_data', 'a'], 'string_unicode'],
    [
      'an escaped NUL in a key',
      '{"event_data":{"k\\u0000":1}}',
      ['body', 'event_data', 'k\u0000', '[key]'],
      'string_unicode',
    ],
    ['1e400', '{"event_data":{"n":1e400}}', ['body', 'event_data', 'n'], 'finite_number'],
    ['-1e400', '{"event_data":{"n":[-1e400]}}', ['body', 'event_data', 'n', 0], 'finite_number'],
    [
      'an integer past 2^53',
      '{"event_data":{"id":12345678901234567890}}',
      ['body', 'event_data', 'id'],
      'number_out_of_range',
    ],
    [
      'a __proto__ key',
      '{"event_data":{"__proto__":{"admin":true}}}',
      ['body', 'event_data', '__proto__'],
      'value_error',
    ],
  ])('refuses %s with 422 naming the field', async (_label, body, loc, type) => {
    const res = await postJson(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type, msg: expect.any(String) })]);
  });

  it('refuses a string over JSON_MAX_STRING_LENGTH with string_too_long', async () => {
    const res = await postJson(JSON.stringify({ event_data: { s: 'x'.repeat(100_001) } }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'event_data', 's'],
          msg: 'String should have at most 100000 characters',
          type: 'string_too_long',
        },
      ],
    });
  });

  it('refuses a body over BODY_LIMIT_BYTES with 413 {detail}', async () => {
    const res = await postJson(JSON.stringify({ s: 'x'.repeat(2 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  it('still refuses invalid UTF-8 bytes', async () => {
    const res = await postJson(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]));
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 0], type: 'json_invalid' });
  });
});

describe('query strings, path parameters and form bodies', () => {
  it('passes ordinary values through', async () => {
    const res = await fetch(`${url}/items/abc?q=caf%C3%A9&tag=a&tag=b`);
    expect(await res.json()).toEqual({ params: { id: 'abc' }, query: { q: 'café', tag: ['a', 'b'] } });
  });

  it('refuses NUL in a query value or name with 422 naming it', async () => {
    const value = await fetch(`${url}/items/abc?q=a%00b`);
    expect(value.status).toBe(422);
    expect(await value.json()).toEqual({
      detail: [
        {
          loc: ['query', 'q'],
          msg: 'Input should be a valid string: NUL (\\u0000) is not allowed',
          type: 'string_unicode',
        },
      ],
    });
    const name = await fetch(`${url}/items/abc?a%00=1`);
    expect(((await name.json()) as Json).detail[0].loc).toEqual(['query', 'a\u0000', '[key]']);
  });

  it('checks a GET route after its own onRequest hooks and before its preValidation hooks, and unknown paths too', async () => {
    stages.length = 0;
    const bad = await fetch(`${url}/ordered?q=a%00b`);
    expect(bad.status).toBe(422);
    expect(stages).toEqual(['onRequest']);
    const ok = await fetch(`${url}/ordered?q=ab`);
    expect(await ok.json()).toEqual({ stages: ['onRequest', 'onRequest', 'preValidation'] });
    const unknown = await fetch(`${url}/nowhere?q=a%00b`);
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as Json).detail[0].loc).toEqual(['query', 'q']);
    expect((await fetch(`${url}/nowhere?q=ab`)).status).toBe(404);
  });

  it('refuses NUL in a path parameter', async () => {
    const res = await fetch(`${url}/items/a%00b`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).detail[0].loc).toEqual(['path', 'id']);
  });

  it("refuses NUL in a form field (the token endpoint's content type) before validation", async () => {
    const form = (body: string) =>
      fetch(`${url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const ok = await form('username=admin&password=p%C3%A4ss');
    expect(await ok.json()).toEqual({ form: { username: 'admin', password: 'päss' } });
    const bad = await form('username=ad%00min&password=x');
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      detail: [
        {
          loc: ['body', 'username'],
          msg: 'Input should be a valid string: NUL (\\u0000) is not allowed',
          type: 'string_unicode',
        },
      ],
    });
  });
});

describe('oversized URLs and headers', () => {
  it('answers a URL over HTTP_MAX_URL_LENGTH with 414 {detail}', async () => {
    const res = await fetch(`${url}/items/abc?q=${'a'.repeat(5000)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ detail: 'Request URL too long' });
    expect(res.headers.get('x-correlation-id')).toBeTruthy();
  });

  it('answers an unknown route with a long URL with the same 414', async () => {
    const res = await fetch(`${url}/nowhere/${'a'.repeat(5000)}`);
    expect(res.status).toBe(414);
  });

  it("answers a URL longer than Node's header limit with 414 {detail} too, not Node's bare answer", async () => {
    for (const length of [20_000, 200_000]) {
      const res = await rawRequest(`GET /items/abc?q=${'a'.repeat(length)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(res.status).toBe(414);
      expect(res.headers).toContain('content-type: application/json');
      expect(JSON.parse(res.body)).toEqual({ detail: 'Request URL too long' });
    }
  });

  it('answers headers over HTTP_MAX_HEADER_BYTES with 431 {detail}', async () => {
    const res = await fetch(`${url}/healthz`, { headers: { 'x-big': 'a'.repeat(20_000) } });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ detail: 'Request header fields too large' });
  });

  it("answers a path parameter over Fastify's maxParamLength with 414 {detail}", async () => {
    const res = await fetch(`${url}/items/${'a'.repeat(200)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ detail: 'Request URL too long' });
  });

  it('answers a malformed request with 400 {detail}', async () => {
    const res = await rawRequest('NOT A REQUEST\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ detail: 'Bad Request' });
  });

  it('keeps serving afterwards', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
