// `npm run bench -- router [seconds]`: starts identity, ledger and our gateway/router on ephemeral
// ports (one process, in-memory PGlite unless DATABASE_URL), plus a stock ApolloGateway over the
// same supergraph on another port, and measures with autocannon (50 connections, in a worker).
//
// First, and printed first, the honest load: 50 connections whose requests come from 500 callers
// (tokens of seeded users, 20 tenants) with different variables (`first`, `after`) on every
// request, so that no two requests in flight are the same and no (caller, variables) pair repeats
// within a run (bench/router-load.support.ts); in-flight deduplication and the response cache
// cannot fold it. On it:
//   (a) a ledger page straight to the ledger subgraph,
//   (b) the same through our router and through the stock ApolloGateway,
//   (c) a ledger page with each event's user (entity resolution in identity) through our router
//       (defaults, and with deduplication and the response cache off) and the stock gateway.
// Then the older single-caller loads (the same query with the same token on every request, which
// deduplication collapses):
//   (a) a ledger query straight to the ledger subgraph,
//   (b) the same query through our router,
//   (c) a query spanning ledger and identity (entity resolution) through our router,
//   (d) (b) and (c) through the stock gateway;
// then REST proxy overhead (p50, /api/v1/ledger/events vs the ledger's /events), the cost of the
// two token-verification strategies, and rate-limiter correctness at ~1,000 req/s from 10 tenants.
// ROUTER_BENCH_ONLY=honest runs the honest load only; =honest:<row> (a, b, b-stock, c, c-plain,
// c-stock) one row of it (for profiling). Numbers only: nothing here passes or fails on time.
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
import { gatewayService } from '../services/gateway';
import { forGateway } from '../router/supergraph/supergraph.model';
import { registryOf } from '../launcher/registry';
import type { HonestSeed } from './router-backends.support';
import honestRequest from './router-load.support';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  non2xx: number;
  errors: number;
  mismatches: number;
}
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const LEDGER_QUERY = '{ ledgerEvents(first: 10) { nodes { id eventType createdAt } } }';
const SPANNING_QUERY = '{ ledgerEvents(first: 10) { nodes { id eventType user { username email isActive roles } } } }';
// The honest load's operations: the same text every time (so plans and parsed documents are
// reusable, as with any real client), different variables per request.
const HONEST_LEDGER_QUERY =
  'query LedgerPage($first: Int!, $after: String) { ledgerEvents(first: $first, after: $after) { nodes { id seq eventType createdAt userId } pageInfo { hasNextPage endCursor } } }';
const HONEST_SPANNING_QUERY =
  'query LedgerPageWithUsers($first: Int!, $after: String) { ledgerEvents(first: $first, after: $after) { nodes { id seq eventType user { username email isActive roles } } pageInfo { hasNextPage endCursor } } }';

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 5) || 5;
  const secret = process.env.JWT_SECRET_KEY ?? 'bench-secret-that-is-long-enough-for-hs256-0123456789';
  const baseEnv: Env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'ERROR', JWT_SECRET_KEY: secret };
  const config = loadPlatformConfig(baseEnv);
  // identity + ledger (and their database) in a child process; the router here.
  // Cheap password hashes for the seeded users of the child only (the loads never log in).
  const child = fork(path.join(__dirname, 'router-backends.support.js'), [], {
    env: { ...baseEnv, PASSWORD_SCRYPT_LOG_N: '10' } as NodeJS.ProcessEnv,
    stdio: 'inherit',
  });
  const backends = await new Promise<{ urls: Record<string, string>; database: string; seed: HonestSeed }>(
    (resolve, reject) => {
      child.once('message', (m) => resolve(m as never));
      child.once('exit', (code) => reject(new Error(`backends exited with ${code}`)));
    },
  );
  const subgraphsCpuMs = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros / 1000));
      child.send('cpu');
    });
  const db = {
    description: backends.database,
    close: async () => {
      child.send('stop');
      await new Promise((r) => child.once('exit', r));
    },
  };
  const noDb = { kind: 'none' } as never; // the gateway uses no database
  const started: BuiltService[] = [];
  const start = async (def: ServiceDefinition, env: Env): Promise<string> => {
    const built = await def.build({
      config: loadPlatformConfig(env),
      db: noDb,
      env,
      logger: createLogger(config.logLevel, def.name),
      registry: registryOf(),
    });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    await built.start?.();
    started.push(built);
    return `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  };
  let stock: ApolloServer | undefined;

  try {
    const { identity, ledger } = backends.urls as { identity: string; ledger: string };
    const routerEnv = {
      ...baseEnv,
      IDENTITY_URL: identity,
      LEDGER_URL: ledger,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      IP_RATE_LIMIT_PER_SECOND: '0',
    };
    const router = await start(gatewayService, routerEnv);
    const routerNoDedup = await start(gatewayService, { ...routerEnv, ROUTER_DEDUPLICATE_QUERIES: 'false' });
    // Neither deduplication nor the Cache-Control-driven response cache: the router's bare work.
    const routerPlain = await start(gatewayService, {
      ...routerEnv,
      ROUTER_DEDUPLICATE_QUERIES: 'false',
      ROUTER_RESPONSE_CACHE: 'false',
    });

    const login = await fetch(`${identity}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: process.env.DEV_ADMIN_USERNAME ?? 'admin',
        password: process.env.DEV_ADMIN_PASSWORD ?? 'admin-dev-password',
      }),
    });
    if (!login.ok) throw new Error(`login failed (${login.status}): the bench uses the development admin user`);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < 10; i++) {
      await fetch(`${router}/api/v1/ledger/append`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant_id: 'default',
          event_type: 'bench',
          event_data: { i },
          user_id: i % 2 ? 'admin' : 'user',
        }),
      });
    }

    // The stock gateway: default options, except that it must forward the caller's token (the
    // subgraphs refuse anonymous reads) and reach the subgraphs on this run's ports. It gets the
    // same supergraph with the SECURITY purposes dropped, which it otherwise refuses to load.
    const sdl = forGateway(fs.readFileSync(path.resolve('supergraph.graphql'), 'utf8'));
    const urls: Record<string, string> = { identity: `${identity}/graphql`, ledger: `${ledger}/graphql` };
    stock = new ApolloServer({
      gateway: new ApolloGateway({
        supergraphSdl: sdl,
        buildService: ({ name }) =>
          new (class extends RemoteGraphQLDataSource {
            override willSendRequest({
              request,
              context,
            }: {
              request: { http?: { headers: { set(k: string, v: string): void } } };
              context: Record<string, unknown>;
            }) {
              if (typeof context.authorization === 'string')
                request.http?.headers.set('authorization', context.authorization);
            }
          })({ url: urls[name] }),
      }),
    });
    const { url: stockUrl } = await startStandaloneServer(stock, {
      listen: { port: 0, host: '127.0.0.1' },
      context: async ({ req }) => ({ authorization: req.headers.authorization }),
    });

    // Sanity: every path answers the same data before it is timed.
    for (const [label, url, query] of [
      ['direct', `${ledger}/graphql`, LEDGER_QUERY],
      ['router', `${router}/graphql`, SPANNING_QUERY],
      ['stock', stockUrl.replace(/\/$/, ''), SPANNING_QUERY],
    ] as const) {
      const res = await fetch(url.endsWith('/graphql') ? url : `${url}/`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { errors?: unknown };
      if (!res.ok || body.errors)
        throw new Error(`${label} sanity query failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }

    const load = async (url: string, query: string) => {
      const opts = {
        url,
        method: 'POST',
        connections: 50,
        workers: 1,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      };
      await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, plan caches, connection pools
      return autocannon({ ...opts, duration: seconds });
    };
    const line = (label: string, r: AutocannonResult) =>
      console.log(
        `${label.padEnd(44)} ${fmt(r.requests.average).padStart(7)} req/s   p50 ${fmt(r.latency.p50, 1).padStart(6)} ms   p99 ${fmt(r.latency.p99, 1).padStart(6)} ms   non-2xx ${r.non2xx} errors ${r.errors}`,
      );

    console.log(
      `router benchmark — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${db.description}; identity+ledger in one child process, routers in this one, autocannon in a worker; ${seconds}s per run (after a 2 s warm-up), 50 connections`,
    );

    const only = process.env.ROUTER_BENCH_ONLY;
    if (!only || only.startsWith('honest')) {
      await honestLoads({
        seconds,
        secret,
        seed: backends.seed,
        subgraphsCpuMs,
        only: only?.split(':')[1],
        direct: `${ledger}/graphql`,
        ours: `${router}/graphql`,
        oursPlain: `${routerPlain}/graphql`,
        stock: stockUrl,
      });
      if (only) return;
    }
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
      line(
        `only (${process.env.ROUTER_BENCH_ONLY}) through our router`,
        await load(`${router}/graphql`, process.env.ROUTER_BENCH_ONLY === 'b' ? LEDGER_QUERY : SPANNING_QUERY),
      );
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
    console.log(
      `ratios: (b)/(a) = ${fmt(b.requests.average / a.requests.average, 2)} (target ≥ 0.6), (c) ours/stock = ${fmt(c.requests.average / dc.requests.average, 2)} (target ≥ 2), (b) ours/stock = ${fmt(b.requests.average / db_.requests.average, 2)}`,
    );
    console.log(
      `ratios without deduplication: (b)/(a) = ${fmt(bNo.requests.average / a.requests.average, 2)}, (c) ours/stock = ${fmt(cNo.requests.average / dc.requests.average, 2)}, (b) ours/stock = ${fmt(bNo.requests.average / db_.requests.average, 2)}`,
    );
    console.log(
      `ratio without deduplication or response cache: (c) ours/stock = ${fmt(cPlain.requests.average / dc.requests.average, 2)}`,
    );

    // REST proxy overhead: one request at a time, alternating, p50 of each path.
    // Both name the tenant, so the ledger does the same work on both paths.
    const direct = await sequentialP50(`${ledger}/events?limit=10&tenant_id=default`, auth, 2000);
    const proxied = await sequentialP50(`${router}/api/v1/ledger/events?limit=10&tenant_id=default`, auth, 2000);
    console.log(
      `REST proxy: ledger /events direct p50 ${fmt(direct, 3)} ms, through /api/v1/ledger/events p50 ${fmt(proxied, 3)} ms, overhead ${fmt(proxied - direct, 3)} ms (target ≤ 2 ms)`,
    );

    // Token verification: local HS256 (with and without the cache) vs identity's verify route.
    const tokens = new AccessTokens(secret, 3600);
    const n = 20_000;
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await tokens.verify(token);
    const localUs = Number(process.hrtime.bigint() - t0) / 1e3 / n;
    const remoteMs = await sequentialP50(`${identity}/v1/auth/verify`, auth, 2000);
    const viaIdentity = await start(gatewayService, {
      ...routerEnv,
      TOKEN_VERIFICATION: 'identity',
      TOKEN_CACHE_TTL_MS: '0',
    });
    const proxiedIdentity = await sequentialP50(
      `${viaIdentity}/api/v1/ledger/events?limit=10&tenant_id=default`,
      auth,
      2000,
    );
    const uncachedLocal = await start(gatewayService, { ...routerEnv, TOKEN_CACHE_TTL_MS: '0' });
    const proxiedLocalNoCache = await sequentialP50(
      `${uncachedLocal}/api/v1/ledger/events?limit=10&tenant_id=default`,
      auth,
      2000,
    );
    t0 = process.hrtime.bigint();
    console.log(
      `token verification: local HS256 ${fmt(localUs, 1)} µs/verify; identity GET /v1/auth/verify p50 ${fmt(remoteMs, 3)} ms per call`,
    );
    console.log(
      `  REST proxy p50 with local+cache ${fmt(proxied, 3)} ms, local no cache ${fmt(proxiedLocalNoCache, 3)} ms, identity route no cache ${fmt(proxiedIdentity, 3)} ms`,
    );

    // Rate limiter: 10 tenants × 100 req/s offered for `seconds`, against 50/s burst 50 each.
    const limited = await start(gatewayService, { ...routerEnv, RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '50' });
    await rateLimitCorrectness(limited, secret, seconds, {
      perSecond: 50,
      burst: 50,
      offeredPerSecond: 100,
      tenants: 10,
    });
  } finally {
    await stock?.stop();
    for (const s of started.reverse()) {
      await s.stop?.();
      await s.app.close();
    }
    await db.close();
  }
}

interface HonestOptions {
  seconds: number;
  secret: string;
  seed: HonestSeed;
  /** CPU time the subgraphs' process has used so far. */
  subgraphsCpuMs(): Promise<number>;
  /** One row only (profiling): a, b, b-stock, c, c-plain, c-stock. */
  only?: string;
  direct: string;
  ours: string;
  oursPlain: string;
  stock: string;
}

/** The honest load (see the top of this file): measures, then prints its table. */
async function honestLoads(o: HonestOptions): Promise<void> {
  const issuer = new AccessTokens(o.secret, 4 * 3600);
  const callers = o.seed.tenants.flatMap((t) => t.users.map((username) => ({ username, tenantId: t.id })));
  const tokens = await Promise.all(callers.map((c) => issuer.issue({ ...c, roles: ['user'], scopes: ['read'] })));
  const vars = (n: number) => honestRequest.variablesOf(n, tokens.length, o.seed.eventsPerTenant);

  // Sanity: a few requests of the load give the same rows on every path, pages are full, and
  // every event's user resolves (the identity entity fetch is really made).
  for (const n of [0, 1, 777, 12_345, 400_001]) {
    const v = vars(n);
    const ask = async (url: string, query: string) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[v.token]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { first: v.first, after: v.after } }),
      });
      const text = await res.text();
      const body = JSON.parse(text) as {
        data?: { ledgerEvents: { nodes: { eventType?: string; user?: { username: string } | null }[] } };
        errors?: unknown;
      };
      if (!res.ok || body.errors || !body.data)
        throw new Error(`honest sanity: ${url} failed: ${res.status} ${text.slice(0, 300)}`);
      return body.data;
    };
    const b = await Promise.all([o.direct, o.ours, o.stock].map((url) => ask(url, HONEST_LEDGER_QUERY)));
    const c = await Promise.all([o.ours, o.oursPlain, o.stock].map((url) => ask(url, HONEST_SPANNING_QUERY)));
    if (new Set(b.map((d) => JSON.stringify(d))).size !== 1 || new Set(c.map((d) => JSON.stringify(d))).size !== 1)
      throw new Error(`honest sanity: the paths disagree on request ${n}`);
    const nodes = c[0]!.ledgerEvents.nodes;
    // The operator's own audit events (\`platform_operator_access\`, written in each tenant the seed
    // touched) name the operator, who is no user of the tenant: those resolve to null by design.
    if (nodes.length !== v.first || nodes.some((e) => !e.user?.username && e.eventType !== 'platform_operator_access'))
      throw new Error(`honest sanity: request ${n} got ${nodes.length} of ${v.first} events, or an unresolved user`);
  }

  const planFile = path.join(os.tmpdir(), `router-bench-plan-${process.pid}.json`);
  let start = 0;
  const run = async (url: string, query: string, duration: number) => {
    // Each run (warm-ups too) starts 100,000 requests past the last one, more than a run sends,
    // so no run repeats what the runs just before it sent; the 1.5 million pairs wrap around only
    // after ~15 runs, minutes after any answer could have been cached (identity's max-age is 5 s).
    fs.writeFileSync(planFile, JSON.stringify({ query, tokens, eventsPerTenant: o.seed.eventsPerTenant, start }));
    start += 100_000;
    process.env.ROUTER_BENCH_PLAN = planFile;
    return autocannon({
      url,
      method: 'POST',
      connections: 50,
      workers: 1,
      duration,
      requests: [{ method: 'POST', setupRequest: path.join(__dirname, 'router-load.support.js') }],
      verifyBody: path.join(__dirname, 'router-verify.support.js'),
    });
  };
  const rows: { key: string; label: string; url: string; query: string }[] = [
    { key: 'a', label: '(a) ledger page, direct to the ledger subgraph', url: o.direct, query: HONEST_LEDGER_QUERY },
    { key: 'b', label: '(b) ledger page, our router', url: o.ours, query: HONEST_LEDGER_QUERY },
    { key: 'b-stock', label: '(b) ledger page, stock ApolloGateway', url: o.stock, query: HONEST_LEDGER_QUERY },
    { key: 'c', label: '(c) ledger page + users, our router', url: o.ours, query: HONEST_SPANNING_QUERY },
    {
      key: 'c-plain',
      label: '(c) our router, dedup and response cache off',
      url: o.oursPlain,
      query: HONEST_SPANNING_QUERY,
    },
    {
      key: 'c-stock',
      label: '(c) ledger page + users, stock ApolloGateway',
      url: o.stock,
      query: HONEST_SPANNING_QUERY,
    },
  ];
  // Rows run in rounds, the order reversed every other round, so that load from elsewhere on
  // the machine drifting over a run does not favour one row: each row's figures are over all its
  // rounds (req/s: all answers over all seconds; p50/p99: the mean of the rounds').
  const rounds = Math.max(1, Number(process.env.ROUTER_BENCH_ROUNDS ?? 2) || 2);
  interface Totals {
    requests: number;
    seconds: number;
    perRound: number[];
    p50: number[];
    p99: number[];
    routerMs?: number;
    subgraphsMs: number;
    non2xx: number;
    bad: number;
  }
  const results = new Map<string, Totals>();
  const selected = rows.filter((r) => !o.only || r.key === o.only);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const row of round % 2 ? [...selected].reverse() : selected) {
        await run(row.url, row.query, round === 0 ? 2 : 1); // warm-up: JIT, plan caches, connection pools
        const [router0, subgraphs0] = [mainThreadCpuMs(), await o.subgraphsCpuMs()];
        const r = await run(row.url, row.query, o.seconds);
        const [router1, subgraphs1] = [mainThreadCpuMs(), await o.subgraphsCpuMs()];
        const t = results.get(row.key) ?? {
          requests: 0,
          seconds: 0,
          perRound: [],
          p50: [],
          p99: [],
          routerMs: 0,
          subgraphsMs: 0,
          non2xx: 0,
          bad: 0,
        };
        t.requests += r.requests.total;
        t.seconds += r.duration;
        t.perRound.push(r.requests.total / r.duration);
        t.p50.push(r.latency.p50);
        t.p99.push(r.latency.p99);
        t.routerMs =
          router0 === undefined || router1 === undefined || t.routerMs === undefined
            ? undefined
            : t.routerMs + router1 - router0;
        t.subgraphsMs += subgraphs1 - subgraphs0;
        t.non2xx += r.non2xx;
        t.bad += r.mismatches + r.errors;
        results.set(row.key, t);
      }
    }
  } finally {
    fs.rmSync(planFile, { force: true });
  }
  const rate = (key: string) => results.get(key)!.requests / results.get(key)!.seconds;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  console.log(
    `\nHONEST LOAD: 50 connections, ${tokens.length} callers over ${o.seed.tenants.length} tenants (${o.seed.eventsPerTenant} events each), first 5-15 and a different after-cursor per request; no two requests in flight from one caller, no (caller, variables) pair repeated; ${rounds} round(s) of ${o.seconds}s per row`,
  );
  console.log(
    `${'path'.padEnd(48)} ${'req/s'.padStart(7)}   ${'p50'.padStart(8)}   ${'p99'.padStart(8)}   CPU ms/request: router, subgraphs   non-2xx  bad bodies  req/s by round`,
  );
  for (const row of rows) {
    const r = results.get(row.key);
    // CPU per answered request: less moved than req/s by other work sharing the cores.
    if (r)
      console.log(
        `${row.label.padEnd(48)} ${fmt(rate(row.key)).padStart(7)}   ${fmt(mean(r.p50), 1).padStart(5)} ms   ${fmt(mean(r.p99), 1).padStart(5)} ms   ${(r.routerMs === undefined ? 'n/a' : fmt(r.routerMs / r.requests, 2)).padStart(20)}, ${fmt(r.subgraphsMs / r.requests, 2).padStart(9)}   ${String(r.non2xx).padStart(7)}  ${String(r.bad).padStart(10)}  ${r.perRound.map((x) => fmt(x)).join(', ')}`,
      );
  }
  console.log(
    "(router CPU: this process's main thread, where the routers run (autocannon has its own thread); subgraphs CPU: the identity+ledger process, the database included on PGlite, not on PostgreSQL)",
  );
  const ratio = (x: string, y: string) => (results.has(x) && results.has(y) ? fmt(rate(x) / rate(y), 2) : 'n/a');
  console.log(
    `honest ratios: (b) ours/(a) direct = ${ratio('b', 'a')} (target ≥ 0.8), (b) stock/(a) direct = ${ratio('b-stock', 'a')}, (b) ours/stock = ${ratio('b', 'b-stock')}`,
  );
  console.log(
    `               (c) ours/stock = ${ratio('c', 'c-stock')} (target ≥ 1.5), (c) ours with dedup and cache off/stock = ${ratio('c-plain', 'c-stock')}\n`,
  );
}

/** CPU time (ms) of this process's main thread, from Linux's /proc; undefined elsewhere. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks (USER_HZ 100)
  } catch {
    return undefined;
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

async function rateLimitCorrectness(
  url: string,
  secret: string,
  seconds: number,
  o: { perSecond: number; burst: number; offeredPerSecond: number; tenants: number },
): Promise<void> {
  const tokens = new AccessTokens(secret, 3600);
  const counts = Array.from({ length: o.tenants }, () => ({ ok: 0, limited: 0, other: 0 }));
  const requests = await Promise.all(
    counts.map(async (count, i) => ({
      method: 'POST',
      path: '/graphql',
      headers: {
        authorization: `Bearer ${await tokens.issue({ username: `bench-${i}`, tenantId: `bench-tenant-${i}`, roles: ['user'], scopes: ['read'] })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ query: '{ __typename }' }),
      onResponse: (status: number) => {
        if (status === 200) count.ok++;
        else if (status === 429) count.limited++;
        else count.other++;
      },
    })),
  );
  // Every connection cycles through the tenants, so each tenant offers an equal share of the
  // overall rate. In-thread (no worker) so the per-tenant callbacks can count.
  const r = await autocannon({
    url,
    connections: o.tenants,
    overallRate: o.offeredPerSecond * o.tenants,
    duration: seconds,
    requests,
  });
  // The bucket refills for as long as the run really lasted, which on a busy machine is longer
  // than asked for (autocannon's own measure of it).
  const elapsed = Math.max(seconds, r.duration);
  const allowedMax = Math.floor(o.burst + o.perSecond * elapsed);
  console.log(
    `rate limiter: ${o.tenants} tenants, ${fmt(r.requests.average)} req/s offered in total for ${fmt(elapsed, 2)}s, limit ${o.perSecond}/s burst ${o.burst} per tenant -> at most ${fmt(allowedMax)} allowed each`,
  );
  for (const [i, c] of counts.entries()) {
    console.log(
      `  tenant ${i}: ${c.ok} allowed, ${c.limited} refused (429), ${c.other} other -> ${c.ok <= allowedMax ? 'within' : 'OVER'} its share`,
    );
  }
}
