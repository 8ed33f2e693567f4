// `npm run bench -- router [seconds]`: starts identity, ledger and our gateway/router on ephemeral
// ports (one process, in-memory PGlite unless DATABASE_URL), plus a stock ApolloGateway over the
// same supergraph on another port, and measures with autocannon (50 connections, in a worker):
//   (a) a ledger query straight to the ledger subgraph,
//   (b) the same query through our router,
//   (c) a query spanning ledger and identity (entity resolution) through our router,
//   (d) (b) and (c) through the stock gateway;
// then REST proxy overhead (p50, /api/v1/ledger/events vs the ledger's /events), the cost of the
// two token-verification strategies, and rate-limiter correctness at ~1,000 req/s from 10 tenants.
// Numbers only: nothing here passes or fails on time.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { AccessTokens } from '../platform/auth/jwt';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { createLogger } from '../platform/logging/logger';
import type { BuiltService, Env, ServiceDefinition } from '../platform/service';
import { gatewayService } from '../router';
import { forGateway } from '../router/supergraph/supergraph.model';
import { registryOf } from '../launcher/registry';

interface Histogram { average: number; p50: number; p99: number }
interface AutocannonResult { requests: Histogram & { total: number }; latency: Histogram; non2xx: number; errors: number }
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const LEDGER_QUERY = '{ ledgerEvents(first: 10) { nodes { id eventType createdAt } } }';
const SPANNING_QUERY = '{ ledgerEvents(first: 10) { nodes { id eventType user { username email isActive roles } } } }';

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 5) || 5;
  const secret = process.env.JWT_SECRET_KEY ?? 'bench-secret-that-is-long-enough-for-hs256-0123456789';
  const baseEnv: Env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'ERROR', JWT_SECRET_KEY: secret };
  const config = loadPlatformConfig(baseEnv);
  // identity + ledger (and their database) in a child process; the router here.
  const child = fork(path.join(__dirname, 'router-backends.support.js'), [], { env: baseEnv as NodeJS.ProcessEnv, stdio: 'inherit' });
  const backends = await new Promise<{ urls: Record<string, string>; database: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as never));
    child.once('exit', (code) => reject(new Error(`backends exited with ${code}`)));
  });
  const db = { description: backends.database, close: async () => { child.send('stop'); await new Promise((r) => child.once('exit', r)); } };
  const noDb = { kind: 'none' } as never; // the gateway uses no database
  const started: BuiltService[] = [];
  const start = async (def: ServiceDefinition, env: Env): Promise<string> => {
    const built = await def.build({ config: loadPlatformConfig(env), db: noDb, env, logger: createLogger(config.logLevel, def.name), registry: registryOf() });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    await built.start?.();
    started.push(built);
    return `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  };
  let stock: ApolloServer | undefined;

  try {
    const { identity, ledger } = backends.urls as { identity: string; ledger: string };
    const routerEnv = { ...baseEnv, IDENTITY_URL: identity, LEDGER_URL: ledger, RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', IP_RATE_LIMIT_PER_SECOND: '0' };
    const router = await start(gatewayService, routerEnv);
    const routerNoDedup = await start(gatewayService, { ...routerEnv, ROUTER_DEDUPLICATE_QUERIES: 'false' });
    // Neither deduplication nor the Cache-Control-driven response cache: the router's bare work.
    const routerPlain = await start(gatewayService, { ...routerEnv, ROUTER_DEDUPLICATE_QUERIES: 'false', ROUTER_RESPONSE_CACHE: 'false' });

    const login = await fetch(`${identity}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: process.env.DEV_ADMIN_USERNAME ?? 'admin', password: process.env.DEV_ADMIN_PASSWORD ?? 'admin-dev-password' }) });
    if (!login.ok) throw new Error(`login failed (${login.status}): the bench uses the development admin user`);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 10; i++) {
      await fetch(`${router}/api/v1/ledger/append`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ tenant_id: 'default', event_type: 'bench', event_data: { i }, user_id: i % 2 ? 'admin' : 'user' }) });
    }

    // The stock gateway: default options, except that it must forward the caller's token (the
    // subgraphs refuse anonymous reads) and reach the subgraphs on this run's ports. It gets the
    // same supergraph with the SECURITY purposes dropped, which it otherwise refuses to load.
    const sdl = forGateway(fs.readFileSync(path.resolve('supergraph.graphql'), 'utf8'));
    const urls: Record<string, string> = { identity: `${identity}/graphql`, ledger: `${ledger}/graphql` };
    stock = new ApolloServer({
      gateway: new ApolloGateway({
        supergraphSdl: sdl,
        buildService: ({ name }) => new (class extends RemoteGraphQLDataSource {
          override willSendRequest({ request, context }: { request: { http?: { headers: { set(k: string, v: string): void } } }; context: Record<string, unknown> }) {
            if (typeof context.authorization === 'string') request.http?.headers.set('authorization', context.authorization);
          }
        })({ url: urls[name] }),
      }),
    });
    const { url: stockUrl } = await startStandaloneServer(stock, { listen: { port: 0, host: '127.0.0.1' }, context: async ({ req }) => ({ authorization: req.headers.authorization }) });

    // Sanity: every path answers the same data before it is timed.
    for (const [label, url, query] of [['direct', `${ledger}/graphql`, LEDGER_QUERY], ['router', `${router}/graphql`, SPANNING_QUERY], ['stock', stockUrl.replace(/\/$/, ''), SPANNING_QUERY]] as const) {
      const res = await fetch(url.endsWith('/graphql') ? url : `${url}/`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const body = (await res.json()) as { errors?: unknown };
      if (!res.ok || body.errors) throw new Error(`${label} sanity query failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }

    const load = async (url: string, query: string) => {
      const opts = { url, method: 'POST', connections: 50, workers: 1, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query }) };
      await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, plan caches, connection pools
      return autocannon({ ...opts, duration: seconds });
    };
    const line = (label: string, r: AutocannonResult) => console.log(`${label.padEnd(44)} ${fmt(r.requests.average).padStart(7)} req/s   p50 ${fmt(r.latency.p50, 1).padStart(6)} ms   p99 ${fmt(r.latency.p99, 1).padStart(6)} ms   non-2xx ${r.non2xx} errors ${r.errors}`);

    console.log(`router benchmark — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${db.description}; identity+ledger in one child process, routers in this one, autocannon in a worker; ${seconds}s per run, 50 connections`);
    // ROUTER_BENCH_ONLY=b|c (for profiling) runs just that scenario of ours; =alternate runs (c)
    // without deduplication and through the stock gateway in turns, to see past run-to-run noise.
    if (process.env.ROUTER_BENCH_ONLY === 'alternate') {
      for (let i = 0; i < 2; i++) {
        line('(c) our router, deduplication off', await load(`${routerNoDedup}/graphql`, SPANNING_QUERY));
        line('(c) stock ApolloGateway', await load(stockUrl, SPANNING_QUERY));
      }
      return;
    }
    if (process.env.ROUTER_BENCH_ONLY) {
      line(`only (${process.env.ROUTER_BENCH_ONLY}) through our router`, await load(`${router}/graphql`, process.env.ROUTER_BENCH_ONLY === 'b' ? LEDGER_QUERY : SPANNING_QUERY));
      return;
    }
    const a = await load(`${ledger}/graphql`, LEDGER_QUERY);
    line('(a) ledger query, direct to the subgraph', a);
    const b = await load(`${router}/graphql`, LEDGER_QUERY);
    line('(b) same query through our router', b);
    const c = await load(`${router}/graphql`, SPANNING_QUERY);
    line('(c) ledger+identity query, our router', c);
    // Every request here is the same query with the same token, which is exactly what in-flight
    // deduplication shares; the same router without it shows what the rest of the work costs.
    const bNo = await load(`${routerNoDedup}/graphql`, LEDGER_QUERY);
    line('(b) our router, deduplication off', bNo);
    const cNo = await load(`${routerNoDedup}/graphql`, SPANNING_QUERY);
    line('(c) our router, deduplication off', cNo);
    const cPlain = await load(`${routerPlain}/graphql`, SPANNING_QUERY);
    line('(c) our router, dedup and response cache off', cPlain);
    const db_ = await load(stockUrl, LEDGER_QUERY);
    line('(d) (b) through the stock ApolloGateway', db_);
    const dc = await load(stockUrl, SPANNING_QUERY);
    line('(d) (c) through the stock ApolloGateway', dc);
    console.log(`ratios: (b)/(a) = ${fmt(b.requests.average / a.requests.average, 2)} (target ≥ 0.6), (c) ours/stock = ${fmt(c.requests.average / dc.requests.average, 2)} (target ≥ 2), (b) ours/stock = ${fmt(b.requests.average / db_.requests.average, 2)}`);
    console.log(`ratios without deduplication: (b)/(a) = ${fmt(bNo.requests.average / a.requests.average, 2)}, (c) ours/stock = ${fmt(cNo.requests.average / dc.requests.average, 2)}, (b) ours/stock = ${fmt(bNo.requests.average / db_.requests.average, 2)}`);
    console.log(`ratio without deduplication or response cache: (c) ours/stock = ${fmt(cPlain.requests.average / dc.requests.average, 2)}`);

    // REST proxy overhead: one request at a time, alternating, p50 of each path.
    // Both name the tenant, so the ledger does the same work on both paths.
    const direct = await sequentialP50(`${ledger}/events?limit=10&tenant_id=default`, auth, 2000);
    const proxied = await sequentialP50(`${router}/api/v1/ledger/events?limit=10&tenant_id=default`, auth, 2000);
    console.log(`REST proxy: ledger /events direct p50 ${fmt(direct, 3)} ms, through /api/v1/ledger/events p50 ${fmt(proxied, 3)} ms, overhead ${fmt(proxied - direct, 3)} ms (target ≤ 2 ms)`);

    // Token verification: local HS256 (with and without the cache) vs identity's verify route.
    const tokens = new AccessTokens(secret, 3600);
    const n = 20_000;
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await tokens.verify(token);
    const localUs = Number(process.hrtime.bigint() - t0) / 1e3 / n;
    const remoteMs = await sequentialP50(`${identity}/v1/auth/verify`, auth, 2000);
    const viaIdentity = await start(gatewayService, { ...routerEnv, TOKEN_VERIFICATION: 'identity', TOKEN_CACHE_TTL_MS: '0' });
    const proxiedIdentity = await sequentialP50(`${viaIdentity}/api/v1/ledger/events?limit=10&tenant_id=default`, auth, 2000);
    const uncachedLocal = await start(gatewayService, { ...routerEnv, TOKEN_CACHE_TTL_MS: '0' });
    const proxiedLocalNoCache = await sequentialP50(`${uncachedLocal}/api/v1/ledger/events?limit=10&tenant_id=default`, auth, 2000);
    t0 = process.hrtime.bigint();
    console.log(`token verification: local HS256 ${fmt(localUs, 1)} µs/verify; identity GET /v1/auth/verify p50 ${fmt(remoteMs, 3)} ms per call`);
    console.log(`  REST proxy p50 with local+cache ${fmt(proxied, 3)} ms, local no cache ${fmt(proxiedLocalNoCache, 3)} ms, identity route no cache ${fmt(proxiedIdentity, 3)} ms`);

    // Rate limiter: 10 tenants × 100 req/s offered for `seconds`, against 50/s burst 50 each.
    const limited = await start(gatewayService, { ...routerEnv, RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '50' });
    await rateLimitCorrectness(limited, secret, seconds, { perSecond: 50, burst: 50, offeredPerSecond: 100, tenants: 10 });
  } finally {
    await stock?.stop();
    for (const s of started.reverse()) {
      await s.stop?.();
      await s.app.close();
    }
    await db.close();
  }
}

async function sequentialP50(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n + 200; i++) {
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    if (i >= 200) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)]!;
}

async function rateLimitCorrectness(url: string, secret: string, seconds: number, o: { perSecond: number; burst: number; offeredPerSecond: number; tenants: number }): Promise<void> {
  const tokens = new AccessTokens(secret, 3600);
  const counts = Array.from({ length: o.tenants }, () => ({ ok: 0, limited: 0, other: 0 }));
  const requests = await Promise.all(counts.map(async (count, i) => ({
    method: 'POST',
    path: '/graphql',
    headers: { authorization: `Bearer ${await tokens.issue({ username: `bench-${i}`, tenantId: `bench-tenant-${i}`, roles: ['user'], scopes: ['read'] })}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
    onResponse: (status: number) => {
      if (status === 200) count.ok++;
      else if (status === 429) count.limited++;
      else count.other++;
    },
  })));
  // Every connection cycles through the tenants, so each tenant offers an equal share of the
  // overall rate. In-thread (no worker) so the per-tenant callbacks can count.
  const r = await autocannon({ url, connections: o.tenants, overallRate: o.offeredPerSecond * o.tenants, duration: seconds, requests });
  const allowedMax = o.burst + o.perSecond * seconds;
  console.log(`rate limiter: ${o.tenants} tenants, ${fmt(r.requests.average)} req/s offered in total for ${seconds}s, limit ${o.perSecond}/s burst ${o.burst} per tenant -> at most ${fmt(allowedMax)} allowed each`);
  for (const [i, c] of counts.entries()) {
    console.log(`  tenant ${i}: ${c.ok} allowed, ${c.limited} refused (429), ${c.other} other -> ${c.ok <= allowedMax ? 'within' : 'OVER'} its share`);
  }
}
