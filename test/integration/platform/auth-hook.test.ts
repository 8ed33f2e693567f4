// The authentication hook: a token the authenticator still caches passes without authenticate()
// (the synchronous path of issue 35), any other token is verified, and the modes hold either way,
// read per request (authenticationHook) or decided per route when it is registered (authenticateRoutes),
// where a GET route's authentication and the kernel's text guard run as one hook.
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
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { createServiceApp } from '../../../platform/http/service-app';

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

describe('authenticateRoutes in the kernel (createServiceApp, with its text guard)', () => {
  async function kernelApp(tokens: TokenAuthenticator) {
    const config = loadPlatformConfig({ LOG_LEVEL: 'ERROR' });
    const server = await createServiceApp({
      name: 'probe',
      title: 'Probe',
      version: '0',
      config,
      health: { readiness: {} },
    });
    open.push(server);
    const onRequest: Record<string, unknown[]> = {};
    await server.register(async (routes) => {
      authenticateRoutes(routes, tokens, 'required');
      // Registered after authentication's: sees each route's final onRequest hooks.
      routes.addHook('onRoute', (route) => {
        const hooks = route.onRequest;
        onRequest[`${String(route.method)} ${route.url}`] = hooks === undefined ? [] : [hooks].flat();
      });
      routes.get('/items/:id', async (request) => ({ user: request.auth?.username ?? null, id: request.params }));
      routes.get('/open', { config: { auth: 'public' } }, async () => ({ ok: true }));
    });
    await server.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    const get = async (url: string, headers?: Record<string, string>) => {
      const res = await fetch(base + url, { headers });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    return { get, onRequest };
  }

  it('runs authentication and the text guard as one hook on a GET route, in the same order', async () => {
    const authenticate = jest.fn(async (t: string) => {
      if (t === 'fresh.b.c') return alice;
      throw new AuthenticationError();
    });
    const server = await kernelApp({ authenticate, cached: (t) => (t === 'a.b.c' ? alice : undefined) });
    expect(server.onRequest['GET /items/:id']).toHaveLength(1);
    expect(server.onRequest['HEAD /items/:id']).toHaveLength(1);
    // Cached, verified now, anonymous, refused: the guard runs only for an accepted caller.
    expect(await server.get('/items/1', { authorization: 'Bearer a.b.c' })).toEqual({
      status: 200,
      body: { user: 'alice', id: { id: '1' } },
    });
    expect((await server.get('/items/1', { authorization: 'Bearer fresh.b.c' })).body.user).toBe('alice');
    expect((await server.get('/items/%00')).status).toBe(401);
    expect((await server.get('/items/%00', { authorization: 'Bearer bad.b.c' })).status).toBe(401);
    for (const token of ['a.b.c', 'fresh.b.c']) {
      const refused = await server.get('/items/1?q=%00', { authorization: `Bearer ${token}` });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toEqual([
        {
          loc: ['query', 'q'],
          msg: 'Input should be a valid string: NUL (\\u0000) is not allowed',
          type: 'string_unicode',
        },
      ]);
      expect((await server.get('/items/%00', { authorization: `Bearer ${token}` })).status).toBe(422);
    }
    // A public route keeps the guard alone.
    expect((await server.get('/open?q=%00')).status).toBe(422);
  });
});
