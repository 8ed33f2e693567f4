// The authentication hook: a token the authenticator still caches passes without authenticate()
// (the synchronous path of issue 35), any other token is verified, and the modes hold either way,
// read per request (authenticationHook) or decided per route when it is registered (authenticateRoutes).
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AuthContext } from '../../../platform/auth/auth-context';
import {
  authenticateRoutes,
  authenticationHook,
  type AuthMode,
  type TokenAuthenticator,
} from '../../../platform/http/auth-hooks';
import { AuthenticationError } from '../../../platform/errors/domain-errors';
import { registerErrorHandler } from '../../../platform/http/error-handler';

const alice: AuthContext = { username: 'alice', tenantId: 't1', roles: ['user'], scopes: ['read'] } as AuthContext;

const open: FastifyInstance[] = [];
afterAll(() => Promise.all(open.map((s) => s.close())));

/** A real server (over HTTP, as clients reach it) with the hook on every route. */
async function app(tokens: TokenAuthenticator) {
  const server = Fastify();
  open.push(server);
  registerErrorHandler(server);
  server.addHook('onRequest', authenticationHook(tokens, 'required'));
  server.get('/me', async (request) => ({ user: request.auth?.username ?? null }));
  server.get('/open', { config: { auth: 'public' } }, async () => ({ ok: true }));
  await server.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return {
    inject: async ({ url, headers }: { url: string; headers?: Record<string, string> }) => {
      const res = await fetch(base + url, { headers });
      const body: unknown = await res.json();
      return { statusCode: res.status, json: () => body };
    },
  };
}

describe('authenticationHook', () => {
  it('accepts a cached token without calling authenticate', async () => {
    const authenticate = jest.fn(async () => {
      throw new Error('not expected');
    });
    const server = await app({ authenticate, cached: (t) => (t === 'a.b.c' ? alice : undefined) });
    const res = await server.inject({ url: '/me', headers: { authorization: 'Bearer a.b.c' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ user: 'alice' });
    expect(authenticate).not.toHaveBeenCalled();
  });

  it('verifies a token the cache does not hold, and refuses one that fails', async () => {
    const authenticate = jest.fn(async (t: string) => {
      if (t === 'good.b.c') return alice;
      throw new AuthenticationError();
    });
    const server = await app({ authenticate, cached: () => undefined });
    expect((await server.inject({ url: '/me', headers: { authorization: 'Bearer good.b.c' } })).json()).toEqual({
      user: 'alice',
    });
    const bad = await server.inject({ url: '/me', headers: { authorization: 'Bearer bad.b.c' } });
    expect(bad.statusCode).toBe(401);
    expect(authenticate).toHaveBeenCalledTimes(2);
  });

  it('answers 401 without a token on a required route and lets a public route through', async () => {
    const server = await app({ authenticate: async () => alice });
    expect((await server.inject({ url: '/me' })).statusCode).toBe(401);
    expect((await server.inject({ url: '/me', headers: { authorization: 'Basic x' } })).statusCode).toBe(401);
    expect((await server.inject({ url: '/open' })).statusCode).toBe(200);
  });
});

describe('authenticateRoutes', () => {
  /** The REST plugin's way: the mode of each route decided when it is registered. */
  async function routesApp(tokens: TokenAuthenticator, defaultMode: AuthMode, seen: string[]) {
    const server = Fastify();
    open.push(server);
    registerErrorHandler(server);
    server.decorateRequest('auth', undefined);
    await server.register(async (routes) => {
      authenticateRoutes(routes, tokens, defaultMode);
      routes.get('/me', async (request) => ({ user: request.auth?.username ?? null }));
      routes.get('/open', { config: { auth: 'public' } }, async () => ({ ok: true }));
      routes.get('/maybe', { config: { auth: 'optional' } }, async (request) => ({
        user: request.auth?.username ?? null,
      }));
      // A route's own onRequest hook still runs after authentication, as under the prefix-wide hook.
      routes.get(
        '/hooked',
        { onRequest: (request, _reply, done) => (seen.push(request.auth?.username ?? 'none'), done()) },
        async () => ({ ok: true }),
      );
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    return {
      inject: async ({ method, url, headers }: { method?: string; url: string; headers?: Record<string, string> }) => {
        const res = await fetch(base + url, { method, headers });
        const text = await res.text();
        return { statusCode: res.status, json: () => JSON.parse(text) as unknown };
      },
    };
  }
  const bearer = { authorization: 'Bearer a.b.c' };

  it('applies each route mode, the default where none is declared', async () => {
    const authenticate = jest.fn(async () => alice);
    const seen: string[] = [];
    const server = await routesApp({ authenticate }, 'required', seen);
    expect((await server.inject({ url: '/me' })).statusCode).toBe(401);
    expect((await server.inject({ url: '/me', headers: bearer })).json()).toEqual({ user: 'alice' });
    expect((await server.inject({ url: '/open', headers: { authorization: 'Basic x' } })).statusCode).toBe(200);
    expect((await server.inject({ url: '/maybe' })).json()).toEqual({ user: null });
    expect((await server.inject({ url: '/maybe', headers: { authorization: 'Basic x' } })).statusCode).toBe(401);
    expect((await server.inject({ url: '/hooked', headers: bearer })).statusCode).toBe(200);
    expect((await server.inject({ url: '/hooked' })).statusCode).toBe(401);
    expect(seen).toEqual(['alice']);
    // HEAD routes Fastify adds for GET ones are authenticated the same way.
    expect((await server.inject({ method: 'HEAD', url: '/me' })).statusCode).toBe(401);
  });

  it('leaves a caller anonymous under an optional default and never looks at tokens on public routes', async () => {
    const authenticate = jest.fn(async () => alice);
    const server = await routesApp({ authenticate }, 'optional', []);
    expect((await server.inject({ url: '/me' })).json()).toEqual({ user: null });
    expect((await server.inject({ url: '/me', headers: bearer })).json()).toEqual({ user: 'alice' });
    await server.inject({ url: '/open', headers: bearer });
    expect(authenticate).toHaveBeenCalledTimes(1);
  });
});
