// `npm run bench -- observability [seconds] [rounds]` (issue 31, "Overhead measured, not guessed"):
//   1. tracing off vs on, in the same run: the same process (identity, config, ledger, gateway on
//      in-memory PGlite, bench/observability-target.support.ts) started three times, with
//      OTEL_SDK_DISABLED=true, with OTEL_TRACES_ENABLED=true (the default sampler: parent-based,
//      always on) and with a 10% ratio, exporting to a sink here that counts spans. Each takes
//      ledger appends (POST /append, 50 connections over 50 tenants) and router queries (POST
//      /graphql on the gateway, a ledger page, 50 connections) in turn, `rounds` times (default 3,
//      the order rotating); medians of throughput, latency and the process's CPU per request, and
//      the cost in percent.
//   2. the embedded receiver: OTLP/HTTP JSON bodies of 1,000 spans decoded, redacted and stored
//      (TraceService.ingest, 4 at a time), spans/s; on PGlite, and on PostgreSQL when DATABASE_URL
//      is set (a throwaway database).
// `npm run bench -- observability receiver` runs part 2 only.
// `npm run bench -- observability export`: CPU per span of the exporter's body, the SDK's serializer
//   against the direct writer (bench/observability-export.support.ts).
// `npm run bench -- observability trace-query [spans]` (PostgreSQL, DATABASE_URL): seeds a
//   throwaway database with `spans` (default 10,000,000) spans by generate_series, 10 a trace over
//   100 tenants, checks the migration's indexes and the trace query's plan, then times 2,000
//   trace-by-id queries (the store's query, one client) and prints p50/p99.
// Numbers only: nothing passes or fails on time.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { AccessTokens } from '../platform/auth/jwt';
import { openDatabase } from '../platform/db/database';
import { createObservabilityModule } from '../subgraphs/observability/observability.module';
import { createSpanStore, TRACE_QUERY } from '../subgraphs/observability/span.store';
import { exportCost } from './observability-export.support';

interface AutocannonResult {
  requests: { average: number };
  duration?: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const SECRET = 'bench-observability-secret-that-is-long-enough-0123456789';
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** An OTLP sink: answers 200 at once and counts the spans it got. */
async function startSink(): Promise<{ url: string; spans: () => number; close(): Promise<void> }> {
  let spans = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans: () => spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startTarget(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; urls: Record<string, string> }> {
  const child = fork(path.join(__dirname, 'observability-target.support.js'), [], { env, stdio: 'inherit' });
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { urls: Record<string, string> }).urls));
    child.once('exit', (code) => reject(new Error(`the target exited (${code})`)));
  });
  return { child, urls };
}

async function stopTarget(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  await exited;
}

function appendLoad(url: string, seconds: number): Promise<AutocannonResult> {
  const tenants = Array.from({ length: 50 }, (_, i) => `bench-${i}`);
  return autocannon({
    url: `${url}/append`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    workers: 1,
    headers: { 'content-type': 'application/json' },
    requests: tenants.map((t) => ({
      method: 'POST',
      body: JSON.stringify({
        tenant_id: t,
        event_type: 'rule_execution',
        user_id: 'bench-user',
        event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
      }),
    })),
  });
}

function queryLoad(url: string, token: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${url}/graphql`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    workers: 1,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ ledgerEvents(first: 10) { totalCount nodes { id eventType } } }' }),
  });
}

type Mode = 'off' | 'on' | 'on-10%';

interface Round {
  requests: number;
  latency: { p50: number; p99: number };
  /** CPU time of the target per request (µs), from /proc: steadier than req/s on a shared machine. */
  cpuMicros: number | undefined;
  non2xx: number;
}

interface Row {
  mode: Mode;
  appends: Round[];
  queries: Round[];
  spansPerSecond: number;
}

/** The target's CPU time so far (ms), from /proc (Linux); undefined elsewhere. */
function cpuMillis(pid: number | undefined): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

async function measured(pid: number | undefined, load: () => Promise<AutocannonResult>): Promise<Round> {
  const c0 = cpuMillis(pid);
  const r = await load();
  const c1 = cpuMillis(pid);
  const total = r.requests.average * (r.duration ?? 1);
  return {
    requests: r.requests.average,
    latency: r.latency,
    cpuMicros: c0 !== undefined && c1 !== undefined && total > 0 ? ((c1 - c0) * 1000) / total : undefined,
    non2xx: r.non2xx,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Tracing off, on (the default sampler) and on at 10% (parentbased_traceidratio 0.1), each in its
 * own process, all started first; then `rounds` rounds in which each process takes the same load
 * in turn (the order rotating), so a burst of load from the machine's other tenants falls on one
 * round of one mode, not on a whole mode. Medians are reported.
 */
async function overhead(seconds: number, rounds: number): Promise<Row[]> {
  const sink = await startSink();
  const token = await new AccessTokens(SECRET, 3600).issue({
    username: 'bench',
    tenantId: 'bench-0',
    roles: ['admin'],
    scopes: ['read', 'write'],
  });
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'ERROR',
    JWT_SECRET_KEY: SECRET,
    REQUIRE_AUTH: 'false',
    LEDGER_REQUIRE_AUTH: 'false',
    PASSWORD_SCRYPT_LOG_N: '10',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    IP_RATE_LIMIT_PER_SECOND: '1000000',
    IP_RATE_LIMIT_BURST: '1000000',
    DATABASE_URL: '',
  };
  const envOf = (mode: Mode): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv =
      mode === 'off'
        ? { ...base, OTEL_SDK_DISABLED: 'true', OTEL_TRACES_ENABLED: 'false' }
        : { ...base, OTEL_TRACES_ENABLED: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.url };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    // 'on' is the platform's default sampler: whatever the caller's environment says is dropped.
    delete env.OTEL_TRACES_SAMPLER;
    delete env.OTEL_TRACES_SAMPLER_ARG;
    if (mode === 'on-10%')
      Object.assign(env, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    return env;
  };
  const modes: Mode[] = ['off', 'on', 'on-10%'];
  const targets: { mode: Mode; child: ChildProcess; urls: Record<string, string>; spans: number; seconds: number }[] =
    [];
  try {
    for (const mode of modes) targets.push({ mode, ...(await startTarget(envOf(mode))), spans: 0, seconds: 0 });
    for (const t of targets) {
      await appendLoad(t.urls.ledger!, 2); // warm-up (and events for the queries to read)
      await queryLoad(t.urls.gateway!, token, 2);
    }
    const rows: Row[] = targets.map((t) => ({ mode: t.mode, appends: [], queries: [], spansPerSecond: 0 }));
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < targets.length; k++) {
        const i = (k + round) % targets.length;
        const t = targets[i]!;
        const before = sink.spans();
        const t0 = performance.now();
        const a = await measured(t.child.pid, () => appendLoad(t.urls.ledger!, seconds));
        const q = await measured(t.child.pid, () => queryLoad(t.urls.gateway!, token, seconds));
        rows[i]!.appends.push(a);
        rows[i]!.queries.push(q);
        console.log(
          `round ${round + 1} ${t.mode}: appends ${fmt(a.requests)}/s (${fmt(a.cpuMicros ?? NaN)} µs CPU each), queries ${fmt(q.requests)}/s (${fmt(q.cpuMicros ?? NaN)} µs), load ${load()}`,
        );
        // The sink counts whatever arrives meanwhile: spans of the previous target's last batch too.
        t.spans += sink.spans() - before;
        t.seconds += (performance.now() - t0) / 1000;
      }
    }
    targets.forEach((t, i) => (rows[i]!.spansPerSecond = t.spans / t.seconds));
    return rows;
  } finally {
    for (const t of targets) await stopTarget(t.child);
    await sink.close();
  }
}

function otlpBody(spans: number): unknown {
  const traceId = randomBytes(16).toString('hex');
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [
          {
            spans: Array.from({ length: spans }, (_, i) => ({
              traceId,
              spanId: randomBytes(8).toString('hex'),
              name: `GET /things/{id} ${i % 20}`,
              startTimeUnixNano: String(now + BigInt(i) * 1000n),
              endTimeUnixNano: String(now + BigInt(i) * 1000n + 5_000_000n),
              attributes: [
                { key: 'platform.tenant_id', value: { stringValue: `tenant-${i % 10}` } },
                { key: 'http.route', value: { stringValue: '/things/{id}' } },
                { key: 'http.response.status_code', value: { intValue: 200 } },
              ],
            })),
          },
        ],
      },
    ],
  };
}

/** A throwaway database beside DATABASE_URL's: its URL and its name (to drop). */
async function scratchDatabase(url: string): Promise<{ url: string; name: string }> {
  const name = `bench_obs_${randomBytes(4).toString('hex')}`;
  await admin(url, `CREATE DATABASE "${name}"`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return { url: u.toString(), name };
}

async function receiver(label: string, url: string | undefined): Promise<void> {
  const scratch = url ? await scratchDatabase(url) : undefined;
  const db = await openDatabase({ url: scratch?.url, pgliteDir: 'memory://', poolSize: 10 });
  try {
    const { traces } = createObservabilityModule(db);
    const bodies = Array.from({ length: 61 }, () => otlpBody(1000));
    await traces.ingest(bodies[0]); // warm-up
    const t0 = performance.now();
    let next = 1;
    const worker = async () => {
      while (next < bodies.length) await traces.ingest(bodies[next++]);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `receiver on ${label}: ${fmt((bodies.length - 1) * 1000)} spans in ${fmt(s, 2)} s = ${fmt(((bodies.length - 1) * 1000) / s)} spans/s`,
    );
  } finally {
    await db.close();
    if (url && scratch) await admin(url, `DROP DATABASE IF EXISTS "${scratch.name}" WITH (FORCE)`);
  }
}

const SPAN_INDEXES = ['observability_spans_pkey', 'observability_spans_tenant_id_start_time_idx'];

/**
 * Seeds `total` spans (10 a trace, 100 tenants) and times trace-by-id queries. The B-tree indexes
 * are dropped for the load and rebuilt after it (one sort beats 10M inserts into a B-tree), then
 * checked to exist under the migration's names and to be what the trace query's plan reads.
 */
async function traceQuery(url: string, total: number): Promise<void> {
  const scratch = await scratchDatabase(url);
  const db = await openDatabase({ url: scratch.url, pgliteDir: 'memory://', poolSize: 2 });
  try {
    const t0 = performance.now();
    await db.sql.exec(`ALTER TABLE observability_spans DROP CONSTRAINT observability_spans_pkey;
      DROP INDEX observability_spans_tenant_id_start_time_idx;`);
    const chunk = 1_000_000;
    for (let from = 0; from < total; from += chunk) {
      await db.sql.query(
        `INSERT INTO observability_spans (trace_id, span_id, parent_span_id, tenant_id, service, name, start_time,
                                          duration_ms, error, attributes)
         SELECT md5((g / 10)::text), lpad(to_hex(g), 16, '0'),
                CASE WHEN g % 10 = 0 THEN NULL ELSE lpad(to_hex(g - g % 10), 16, '0') END,
                'tenant-' || ((g / 10) % 100), 'svc-' || (g % 7), 'GET /things/{id}',
                now() - make_interval(secs => (${total} - g) / 1000.0), (g % 97)::float8, g % 50 = 0,
                jsonb_build_object('http.route', '/things/{id}', 'http.response.status_code', 200)
           FROM generate_series($1::bigint, $2::bigint) AS g`,
        [from, Math.min(total, from + chunk) - 1],
      );
    }
    const loaded = performance.now();
    await db.sql
      .exec(`ALTER TABLE observability_spans ADD CONSTRAINT observability_spans_pkey PRIMARY KEY (trace_id, span_id);
      CREATE INDEX observability_spans_tenant_id_start_time_idx ON observability_spans (tenant_id, start_time);
      ANALYZE observability_spans;`);
    const indexed = performance.now();
    console.log(
      `seeded ${fmt(total)} spans in ${fmt((loaded - t0) / 1000, 1)} s, indexes rebuilt in ${fmt((indexed - loaded) / 1000, 1)} s`,
    );
    const present = await db.sql.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'observability_spans'`,
    );
    const names = new Set(present.rows.map((r) => r.indexname));
    const missing = SPAN_INDEXES.filter((n) => !names.has(n));
    if (missing.length > 0) throw new Error(`indexes missing after the load: ${missing.join(', ')}`);
    const traceOf = (n: number) => createHash('md5').update(String(n)).digest('hex');
    // The store's own query, run: the key probed twice, a sort of the trace's rows only, no scan
    // of the table or of a tenant's spans. A bench that measured another plan would say nothing.
    const plan = await db.sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${TRACE_QUERY}`, [
      'tenant-1',
      traceOf(1),
      5000,
    ]);
    const planText = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    console.log(`trace query plan (EXPLAIN ANALYZE, BUFFERS):\n${planText}`);
    if (!planText.includes('observability_spans_pkey') || /Seq Scan|tenant_id_start_time_idx/.test(planText))
      throw new Error(
        'the trace query does not probe the key (trace_id, span_id): the timings would not be of the intended plan',
      );
    const store = createSpanStore(db.sql);
    const traces = Math.floor(total / 10);
    const timings: number[] = [];
    let spans = 0;
    for (let i = 0; i < 2_200; i++) {
      const n = Math.floor(Math.random() * traces);
      const q0 = performance.now();
      const found = await store.trace(`tenant-${n % 100}`, traceOf(n), 5000);
      if (i >= 200) timings.push(performance.now() - q0); // the first 200 warm the connection and cache
      spans += found.length;
    }
    timings.sort((a, b) => a - b);
    const at = (p: number) => timings[Math.min(timings.length - 1, Math.floor(p * timings.length))]!;
    console.log(
      `trace by id at ${fmt(total)} spans: ${fmt(timings.length)} queries, ${fmt(spans / 2200, 1)} spans each, p50 ${fmt(at(0.5), 2)} ms, p99 ${fmt(at(0.99), 2)} ms, max ${fmt(timings[timings.length - 1]!, 2)} ms`,
    );
  } finally {
    await db.close();
    await admin(url, `DROP DATABASE IF EXISTS "${scratch.name}" WITH (FORCE)`);
  }
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function run(args: string[]): Promise<void> {
  console.log(`# observability bench — ${new Date().toISOString()}, load average ${load()}, ${os.cpus().length} cores`);
  if (args[0] === 'export') {
    exportCost();
    console.log(`load average after: ${load()}`);
    return;
  }
  if (args[0] === 'receiver' || args[0] === 'trace-query') {
    const url = process.env.DATABASE_URL;
    if (args[0] === 'receiver') {
      await receiver('PGlite (in memory)', undefined);
      if (url) await receiver('PostgreSQL', url);
    } else {
      if (!url) throw new Error('trace-query needs DATABASE_URL (PostgreSQL)');
      await traceQuery(url, Number(args[1] ?? 10_000_000));
    }
    console.log(`load average after: ${load()}`);
    return;
  }
  const seconds = Number(args[0] ?? 10);
  const rounds = Number(args[1] ?? 3);
  const rows = await overhead(seconds, rounds);
  const med = (rs: Round[], f: (r: Round) => number | undefined) => {
    const xs = rs.map(f).filter((x): x is number => x !== undefined);
    return xs.length > 0 ? median(xs) : NaN;
  };
  console.log(`\nmedians of ${rounds} rounds of ${seconds} s per load and mode (50 connections each)`);
  console.log(
    '| tracing | appends/s | append p50/p99 ms | append CPU µs/req | router queries/s | query p50/p99 ms | query CPU µs/req | spans exported/s | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.mode} | ${fmt(med(r.appends, (x) => x.requests))} | ${med(r.appends, (x) => x.latency.p50)}/${med(r.appends, (x) => x.latency.p99)} | ${fmt(med(r.appends, (x) => x.cpuMicros))} | ${fmt(med(r.queries, (x) => x.requests))} | ${med(r.queries, (x) => x.latency.p50)}/${med(r.queries, (x) => x.latency.p99)} | ${fmt(med(r.queries, (x) => x.cpuMicros))} | ${fmt(r.spansPerSecond)} | ${[...r.appends, ...r.queries].reduce((n, x) => n + x.non2xx, 0)} |`,
    );
  const off = rows[0]!;
  const cost = (a: number, b: number) => `${fmt(((a - b) / a) * 100, 1)}%`;
  const extra = (a: number, b: number) => `${fmt(((b - a) / a) * 100, 1)}%`;
  for (const on of rows.slice(1))
    console.log(
      `\ntracing ${on.mode} costs ${cost(
        med(off.appends, (x) => x.requests),
        med(on.appends, (x) => x.requests),
      )} of append throughput and ${cost(
        med(off.queries, (x) => x.requests),
        med(on.queries, (x) => x.requests),
      )} of router query throughput (CPU per request: +${extra(
        med(off.appends, (x) => x.cpuMicros),
        med(on.appends, (x) => x.cpuMicros),
      )} appends, +${extra(
        med(off.queries, (x) => x.cpuMicros),
        med(on.queries, (x) => x.cpuMicros),
      )} queries)`,
    );
  console.log('');
  await receiver('PGlite (in memory)', undefined);
  if (process.env.DATABASE_URL) await receiver('PostgreSQL', process.env.DATABASE_URL);
  console.log(
    `load average after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
