// The gateway's REST proxy applies the kernel's JSON input guard (parseJsonStrict) to the bodies
// it reads for tenant_id: a body a service would refuse is refused at the gateway with the same
// 422 and never reaches the backend, and injecting tenant_id keeps the client's bytes as sent.
// Its own token checks parse the claims too (platform/auth/jwt.ts).
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { createServiceApp } from '../../../platform/http/service-app';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { deadUrl, fixtureSupergraphFile, startGateway, tokenFor } from './gateway.support';

jest.setTimeout(60_000);

let ledger: FakeBackend;
let gw: Awaited<ReturnType<typeof startGateway>>;
let service: FastifyInstance;
let serviceUrl: string;
let token: string;

beforeAll(async () => {
  ledger = await startFakeBackend();
  const nowhere = await deadUrl();
  gw = await startGateway({
    LEDGER_URL: ledger.url,
    IDENTITY_URL: nowhere,
    SUPERGRAPH_PATH: fixtureSupergraphFile(`${nowhere}/graphql`),
    RATE_LIMIT_PER_SECOND: '1000',
    RATE_LIMIT_BURST: '1000',
  });
  // A service built by the same kernel, with the same settings, to compare answers with.
  service = await createServiceApp({
    name: 'probe',
    title: 'Probe',
    version: '1.0.0',
    config: loadPlatformConfig({ LOG_LEVEL: 'ERROR', JWT_SECRET_KEY: TEST_JWT_SECRET }),
    health: { readiness: {} },
  });
  service.post('/append', async (request) => request.body);
  await service.listen({ port: 0, host: '127.0.0.1' });
  serviceUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  token = await tokenFor('tenant-a');
});
afterAll(async () => {
  await gw?.close();
  await service?.close();
  await ledger?.close();
});

const viaGateway = (body: string | Buffer) =>
  fetch(`${gw.url}/api/v1/ledger/append`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
const atService = (body: string | Buffer) =>
  fetch(`${serviceUrl}/append`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('the gateway refuses what a service refuses, with the same 422', () => {
  const deep = (levels: number) => '{"event_type":"x","event_data":' + '['.repeat(levels) + ']'.repeat(levels) + '}';
  it.each([
    ['10,000 levels of nesting (was a 500)', deep(10_000)],
    ['100,000 levels of nesting', deep(100_000)],
    ['1e400 (was forwarded as null)', '{"event_type":"x","event_data":{"n":1e400}}'],
    ['an integer past 2^53', '{"event_type":"x","event_data":{"n":9007199254740993}}'],
    ['an escaped lone surrogate', '{"event_type":"x","event_data":{"s":"\\udc00"}}'],
    ['NUL in a key', '{"event_type":"x","event_data":{"\\u0000":1}}'],
    ['a __proto__ key', '{"event_type":"x","__proto__":{"tenant_id":"tenant-b"}}'],
    ['malformed JSON', '{"event_type": "x",'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])],
  ])('%s', async (_label, body) => {
    const hitsBefore = ledger.hits;
    const gateway = await viaGateway(body);
    const direct = await atService(body);
    expect(gateway.status).toBe(422);
    expect(direct.status).toBe(422);
    expect(await gateway.json()).toEqual(await direct.json());
    expect(ledger.hits).toBe(hitsBefore);
  });

  it('a body over the limit is 413 {detail} at the gateway', async () => {
    const res = await viaGateway(JSON.stringify({ event_type: 'x', event_data: { s: 'x'.repeat(1024 * 1024) } }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: 'Request body too large' });
  });
});

describe('tenant_id injection', () => {
  it('adds tenant_id without re-serialising: number spellings, escapes and spacing arrive as sent', async () => {
    const sent =
      '{ "event_type" : "x",\n  "event_data": {"amount": 1.50, "big": 1E+21, "tiny": 5e-324, "s": "caf\\u00e9 \\ud83d\\ude00", "k": [ ]} }';
    const res = await viaGateway(sent);
    expect(res.status).toBe(200);
    const echo = (await res.json()) as { text: string; headers: Record<string, string> };
    expect(echo.text).toBe(sent.slice(0, -1) + ',"tenant_id":"tenant-a"}');
    expect(Number(echo.headers['content-length'])).toBe(Buffer.byteLength(echo.text));
  });

  it('injects into an empty object and leaves multi-byte characters intact', async () => {
    expect(((await (await viaGateway('{}')).json()) as { text: string }).text).toBe('{"tenant_id":"tenant-a"}');
    const text = '{"event_type":"ünïcødé 🚀","event_data":{}}';
    expect(((await (await viaGateway(text)).json()) as { text: string }).text).toBe(
      '{"event_type":"ünïcødé 🚀","event_data":{},"tenant_id":"tenant-a"}',
    );
  });

  it('leaves a body that names its own tenant untouched', async () => {
    const sent = '{"tenant_id":"tenant-a","event_type":"x","event_data":{"n":1.0}}';
    expect(((await (await viaGateway(sent)).json()) as { text: string }).text).toBe(sent);
  });
});

describe('tokens the gateway verifies itself', () => {
  const signed = (claims: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      sub: 'alice',
      tenant_id: 'tenant-a',
      roles: ['user'],
      scopes: ['read', 'write'],
      iss: 'platform-identity',
      iat: now,
      exp: now + 600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
  };
  const services = (t: string) => fetch(`${gw.url}/api/v1/services`, { headers: { authorization: `Bearer ${t}` } });

  it.each([
    ['roles not a list of strings', { roles: [1] }],
    ['sub a number', { sub: 1 }],
    ['tenant_id missing', { tenant_id: undefined }],
  ])('a signed token with %s is a 401 {detail} with WWW-Authenticate', async (_label, claims) => {
    const res = await services(await signed(claims));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({ detail: 'Could not validate credentials' });
  });

  it('a token with `=` appended is a 401, the token itself is not', async () => {
    const t = await signed({});
    expect((await services(`${t}=`)).status).toBe(401);
    expect((await services(t)).status).toBe(200);
  });
});
