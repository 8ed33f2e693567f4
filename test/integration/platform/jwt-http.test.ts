// A correctly signed token with badly typed claims, or a token spelt non-canonically, is a 401 in
// the spec's shape (`{detail}` + `WWW-Authenticate: Bearer`) on a real service, not a 500.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { AccessTokens } from '../../../platform/auth/jwt';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { authenticationHook, requireAuth } from '../../../platform/http/auth-hooks';
import { createServiceApp } from '../../../platform/http/service-app';
import { TEST_JWT_SECRET } from '../../support/service-harness';

let app: FastifyInstance;
let url: string;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);

beforeAll(async () => {
  app = await createServiceApp({
    name: 'probe',
    title: 'Probe',
    version: '1.0.0',
    config: loadPlatformConfig({ LOG_LEVEL: 'ERROR', JWT_SECRET_KEY: TEST_JWT_SECRET }),
    health: { readiness: {} },
  });
  app.get('/me', { onRequest: authenticationHook(tokens, 'required') }, async (request) => requireAuth(request));
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app.close());

const me = (token: string) => fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });
const sign = (claims: Record<string, unknown>) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    sub: 'alice',
    tenant_id: 'acme',
    roles: ['user'],
    scopes: ['read'],
    iss: 'platform-identity',
    iat: now,
    exp: now + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
};

it('answers a well-formed token', async () => {
  const res = await me(await sign({}));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    username: 'alice',
    tenantId: 'acme',
    roles: ['user'],
    scopes: ['read'],
    isService: false,
  });
});

it.each([
  ['roles not a list of strings (was a 500)', { roles: [1, 2] }],
  ['sub a number (was accepted as a numeric username)', { sub: 42 }],
  ['roles a string', { roles: 'admin' }],
  ['scopes an object', { scopes: { admin: true } }],
])("answers a signed token with %s with 401 in the spec's shape", async (_label, claims) => {
  const res = await me(await sign(claims));
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expect(await res.json()).toEqual({ detail: 'Could not validate credentials' });
});

it('answers a token with `=` appended with 401 (was accepted)', async () => {
  const token = await sign({});
  expect((await me(`${token}=`)).status).toBe(401);
  expect((await me(token)).status).toBe(200);
});
