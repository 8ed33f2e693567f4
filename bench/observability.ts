// `npm run bench -- observability [seconds]` (issue 31, "Overhead measured, not guessed"):
//   1. tracing off vs on, in the same run: the same process (identity, config, ledger, gateway on
//      in-memory PGlite, bench/observability-target.support.ts) started twice, once with
//      OTEL_SDK_DISABLED=true and once with OTEL_TRACES_ENABLED=true (default sampling: parent-based,
//      always on) exporting to a sink here that counts spans. On each: ledger appends
//      (POST /append, 50 connections over 50 tenants) and router queries (POST /graphql on the
//      gateway, a ledger page, 50 connections); throughput and latency, and the cost in percent.
//   2. the embedded receiver: OTLP/HTTP JSON bodies of 1,000 spans decoded, redacted and stored
//      (TraceService.ingest, 4 at a time), spans/s; on PGlite, and on PostgreSQL when DATABASE_URL
//      is set (a throwaway database).
// Numbers only: nothing passes or fails on time.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { AccessTokens } from '../platform/auth/jwt';
import { openDatabase } from '../platform/db/database';
import { createObservabilityModule } from '../subgraphs/observability/observability.module';

interface AutocannonResult {
  requests: { average: number };
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

interface Row {
  mode: string;
  appends: AutocannonResult;
  queries: AutocannonResult;
  spansPerSecond: number;
}

async function overhead(seconds: number): Promise<Row[]> {
  const sink = await startSink();
  const token = await new AccessTokens(SECRET, 3600).issue({
    username: 'bench',
    tenantId: 'bench-0',
    roles: ['admin'],
    scopes: ['read', 'write'],
  });
  const rows: Row[] = [];
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
  try {
    for (const mode of ['off', 'on'] as const) {
      const env: NodeJS.ProcessEnv =
        mode === 'off'
          ? { ...base, OTEL_SDK_DISABLED: 'true', OTEL_TRACES_ENABLED: 'false' }
          : { ...base, OTEL_TRACES_ENABLED: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.url };
      delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
      const { child, urls } = await startTarget(env);
      try {
        await appendLoad(urls.ledger!, 2); // warm-up (and events for the queries to read)
        await queryLoad(urls.gateway!, token, 2);
        const before = sink.spans();
        const t0 = performance.now();
        const appends = await appendLoad(urls.ledger!, seconds);
        const queries = await queryLoad(urls.gateway!, token, seconds);
        const spansPerSecond = (sink.spans() - before) / ((performance.now() - t0) / 1000);
        rows.push({ mode, appends, queries, spansPerSecond });
      } finally {
        await stopTarget(child);
      }
    }
  } finally {
    await sink.close();
  }
  return rows;
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

async function receiver(label: string, url: string | undefined): Promise<void> {
  let scratch: string | undefined;
  let dbUrl = url;
  if (url) {
    scratch = `bench_obs_${randomBytes(4).toString('hex')}`;
    await admin(url, `CREATE DATABASE "${scratch}"`);
    const u = new URL(url);
    u.pathname = `/${scratch}`;
    dbUrl = u.toString();
  }
  const db = await openDatabase({ url: dbUrl, pgliteDir: 'memory://', poolSize: 10 });
  try {
    const { traces } = createObservabilityModule(db);
    const bodies = Array.from({ length: 40 }, () => otlpBody(1000));
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
    if (url && scratch) await admin(url, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
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

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  console.log(
    `# observability bench — ${new Date().toISOString()}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.cpus().length} cores`,
  );
  const rows = await overhead(seconds);
  console.log(
    '\n| tracing | appends/s | append p50/p99 ms | router queries/s | query p50/p99 ms | spans exported/s | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.mode} | ${fmt(r.appends.requests.average)} | ${r.appends.latency.p50}/${r.appends.latency.p99} | ${fmt(r.queries.requests.average)} | ${r.queries.latency.p50}/${r.queries.latency.p99} | ${fmt(r.spansPerSecond)} | ${r.appends.non2xx + r.queries.non2xx} |`,
    );
  const [off, on] = rows as [Row, Row];
  const cost = (a: number, b: number) => `${fmt(((a - b) / a) * 100, 1)}%`;
  console.log(
    `\ntracing on costs ${cost(off.appends.requests.average, on.appends.requests.average)} of append throughput and ${cost(off.queries.requests.average, on.queries.requests.average)} of router query throughput`,
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
