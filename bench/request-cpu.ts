// `npm run bench -- request-cpu [requests] [rounds] [server...] [--against <build>]`: the platform kernel's own cost per request
// (issue 35), as main-thread CPU over a fixed number of requests rather than as a rate, which a
// shared machine makes noisy. Four servers on this process's main thread, the load generator
// (autocannon, 50 connections) in a worker thread, measured in alternating rounds:
//   - hello: a bare Fastify answering a fixed JSON body (the issue's baseline);
//   - kernel: createServiceApp (hooks, logging, metrics, input guard) with the same public route;
//   - kernel+auth: the kernel, the authentication hook (a cached bearer token) and a synchronous
//     handler answering what /v1/auth/verify answers, through its response schema;
//   - verify: identity's own GET /v1/auth/verify route and token verifier, authenticated per route
//     as buildServiceApp does (the kernel's text guard and the route's hooks included).
// Naming servers measures only those (for a --cpu-prof of one). `--against <build>` adds the
// kernel servers built from another tsc output folder (another tree's dist/, e.g. the commit
// before a change), measured in the same rounds: an A/B in one process, where a shared machine's
// noise hits both sides alike; every other round runs the servers in the reverse order. Prints
// each round and the median per server. No database.
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import { AccessTokens } from '../platform/auth/jwt';
import { loadPlatformConfig } from '../platform/config/platform.config';
import path from 'node:path';
import * as authHooks from '../platform/http/auth-hooks';
import * as serviceApp from '../platform/http/service-app';
import * as authRoutes from '../rest-compat/identity/auth.routes';
import * as tokenVerifier from '../subgraphs/identity/token.verifier';
import { formatPerRequest, perRequest, threadCpu, type ThreadCpu } from './thread-cpu.support';

interface AutocannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const SECRET = 'request-cpu-bench-secret-0123456789abcdef';

const verifyResponse = {
  type: 'object',
  properties: {
    valid: { type: 'boolean' },
    username: { type: 'string' },
    tenant_id: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string' } },
  },
} as const;

interface Kernel {
  createServiceApp: typeof serviceApp.createServiceApp;
  authenticationHook: typeof authHooks.authenticationHook;
  authenticateRoutes?: typeof authHooks.authenticateRoutes;
  registerAuthRoutes: typeof authRoutes.registerAuthRoutes;
  CachedTokenVerifier: typeof tokenVerifier.CachedTokenVerifier;
}

/** The kernel of another build (its dist/ folder), for an A/B in the same rounds. */
function kernelOf(build: string): Kernel {
  // A path known only at run time; the build is CommonJS like this one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = (file: string) => require(path.resolve(build, file)) as unknown;
  return {
    ...(load('platform/http/service-app.js') as Pick<Kernel, 'createServiceApp'>),
    ...(load('platform/http/auth-hooks.js') as Pick<Kernel, 'authenticationHook' | 'authenticateRoutes'>),
    ...(load('rest-compat/identity/auth.routes.js') as Pick<Kernel, 'registerAuthRoutes'>),
    ...(load('subgraphs/identity/token.verifier.js') as Pick<Kernel, 'CachedTokenVerifier'>),
  };
}

function helloWorld(body: string): FastifyInstance {
  const hello = Fastify({ logger: false });
  hello.get('/answer', (_request, reply) => {
    reply.header('content-type', 'application/json');
    return body;
  });
  return hello;
}

async function kernelServers(
  { createServiceApp, authenticationHook, authenticateRoutes, registerAuthRoutes, CachedTokenVerifier }: Kernel,
  body: string,
  suffix: string,
): Promise<Record<string, FastifyInstance>> {
  const config = loadPlatformConfig({ LOG_LEVEL: 'WARNING', JWT_SECRET_KEY: SECRET, NODE_ENV: 'production' });
  const health = { readiness: {} };
  const kernel = await createServiceApp({ name: 'bench', title: 'bench', version: '0', config, health });
  kernel.get('/answer', { config: { auth: 'public' } }, (_request, reply) => {
    reply.header('content-type', 'application/json');
    return body;
  });
  const authed = await createServiceApp({ name: 'bench-auth', title: 'bench', version: '0', config, health });
  const tokens = new AccessTokens(SECRET, 3600);
  await authed.register(async (routes) => {
    routes.addHook('onRequest', authenticationHook(tokens, 'required'));
    routes.get('/answer', { schema: { response: { 200: verifyResponse } } }, (request) => {
      const who = request.auth!;
      return { valid: true, username: who.username, tenant_id: who.tenantId, roles: who.roles, scopes: who.scopes };
    });
  });
  // Identity's own GET /v1/auth/verify (its route, its verifier over AccessTokens, authentication
  // per route as buildServiceApp does), at its own path.
  const verify = await createServiceApp({ name: 'bench-verify', title: 'bench', version: '0', config, health });
  const verifier = new CachedTokenVerifier(new AccessTokens(SECRET, 3600), 10_000);
  await verify.register(async (routes) => {
    if (authenticateRoutes) authenticateRoutes(routes, verifier, 'required');
    else routes.addHook('onRequest', authenticationHook(verifier, 'required'));
    // Only `auth` is read when the routes are registered; /v1/auth/verify never calls it.
    registerAuthRoutes(routes, { auth: {} } as Parameters<typeof registerAuthRoutes>[1]);
  });
  return { [`kernel${suffix}`]: kernel, [`kernel+auth${suffix}`]: authed, [`verify${suffix}`]: verify };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

export async function run(args: string[]): Promise<void> {
  const requests = Number(args[0] ?? 60_000) || 60_000;
  const rounds = Number(args[1] ?? 3) || 3;
  const tokens = new AccessTokens(SECRET, 3600);
  const token = await tokens.issue({ username: 'bench', tenantId: 'default', roles: ['user'], scopes: ['read'] });
  const body = JSON.stringify({
    valid: true,
    username: 'bench',
    tenant_id: 'default',
    roles: ['user'],
    scopes: ['read'],
  });
  const against = args.indexOf('--against');
  const other = against >= 0 ? args.splice(against, 2)[1] : undefined;
  const all: Record<string, FastifyInstance> = {
    hello: helloWorld(body),
    ...(await kernelServers({ ...serviceApp, ...authHooks, ...authRoutes, ...tokenVerifier }, body, '')),
    ...(other ? await kernelServers(kernelOf(other), body, ' (other)') : {}),
  };
  const only = args.slice(2);
  const apps = only.length ? Object.fromEntries(Object.entries(all).filter(([name]) => only.includes(name))) : all;
  const urls: Record<string, string> = {};
  for (const [name, app] of Object.entries(apps)) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const route = name.startsWith('verify') ? '/v1/auth/verify' : '/answer';
    urls[name] = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${route}`;
  }
  const load = (url: string, amount: number) =>
    autocannon({ url, connections: 50, workers: 1, amount, headers: { authorization: `Bearer ${token}` } });
  const loadAvg = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `request-cpu — ${requests} requests a round, ${rounds} rounds, Node ${process.version}, load ${loadAvg()}`,
  );
  const results: Record<string, { user: number[]; system: number[] }> = {};
  try {
    for (const url of Object.values(urls)) await load(url, Math.min(requests, 20_000)); // warm-up: JIT, token cache
    for (let round = 1; round <= rounds; round++) {
      // Every other round in the reverse order: the server measured first in a round is not always the same one.
      const order = Object.entries(urls);
      if (round % 2 === 0) order.reverse();
      for (const [name, url] of order) {
        const before: ThreadCpu | undefined = threadCpu(process.pid);
        const r = await load(url, requests);
        const cpu = perRequest(before, threadCpu(process.pid), r.requests.total);
        const bad = r.non2xx + r.errors;
        console.log(
          `round ${round} ${name.padEnd(20)} ${formatPerRequest(cpu)}, ${Math.round(r.requests.average)} req/s${bad ? `, ${bad} failed` : ''}`,
        );
        if (cpu) {
          results[name] ??= { user: [], system: [] };
          results[name].user.push(cpu.user);
          results[name].system.push(cpu.system);
        }
      }
    }
    for (const [name, r] of Object.entries(results)) {
      console.log(
        `median ${name.padEnd(20)} user ${median(r.user).toFixed(1)} µs, system ${median(r.system).toFixed(1)} µs per request`,
      );
    }
    console.log(`load at the end ${loadAvg()}`);
  } finally {
    for (const app of Object.values(all)) await app.close();
  }
}
