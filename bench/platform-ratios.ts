// `npm run bench -- platform-ratios [seconds] [--json]` (needs DATABASE_URL, PostgreSQL; build
// first): issue 35's figures, each a ratio of two numbers taken in the same run on this machine:
//   1. pgbench, 50 clients, one single-row INSERT per transaction (the ledger's baseline);
//   2. the ledger alone (`npm run service -- ledger`, a child process from dist/): POST /append,
//      50 connections over 50 tenants, each request with its tenant's bearer token; then over one;
//   3. the same inside the whole platform (`npm start`'s launcher, a child process), then
//      GET /v1/auth/verify at 50 connections on identity there, against a Fastify hello-world
//      answering the same JSON in its own process while the platform runs, with each process's
//      main-thread CPU per request (bench/thread-cpu.support.ts; all of npm start's services
//      share that thread, so their background work is in the figure).
// Prints the figures and ratios. Measures only; `--json` prints the ratios as one JSON line last
// (read by bench/ci-ratios.ts, CI's performance check).
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { registryOf } from '../launcher/registry';
import { AccessTokens } from '../platform/auth/jwt';
import { DEV_DEFAULTS } from '../subgraphs/identity/identity.config';
import { formatPerRequest, perRequest, threadCpu, type ThreadCpu } from './thread-cpu.support';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const SECRET = randomBytes(32).toString('hex');
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function admin(baseUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

async function freshDatabase(baseUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `bench_ledger_${randomBytes(4).toString('hex')}`;
  await admin(baseUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** pgbench's single-row insert, 50 clients, as the baseline a durable append is compared with. */
async function pgbenchTps(baseUrl: string, seconds: number): Promise<number> {
  const db = await freshDatabase(baseUrl);
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pgbench-')), 'insert.sql');
  try {
    await admin(
      db.url,
      'CREATE TABLE bench_rows (id bigserial PRIMARY KEY, tenant text NOT NULL, data jsonb NOT NULL)',
    );
    fs.writeFileSync(
      script,
      "\\set t random(1, 50)\nINSERT INTO bench_rows (tenant, data) VALUES ('bench-' || :t, '{\"rules_executed\": 12}');\n",
    );
    const u = new URL(db.url);
    const { stdout } = await promisify(execFile)(
      'pgbench',
      [
        '-n',
        '-c',
        '50',
        '-j',
        '2',
        '-T',
        String(seconds),
        '-f',
        script,
        '-h',
        u.hostname,
        '-p',
        u.port || '5432',
        '-U',
        decodeURIComponent(u.username || 'postgres'),
        db.name,
      ],
      { env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } },
    );
    const m = /tps = ([\d.]+)/.exec(stdout);
    if (!m) throw new Error(`pgbench printed no tps:\n${stdout}`);
    return Number(m[1]);
  } finally {
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
    await db.drop();
  }
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (let i = 0; i < 600; i++) {
    if (exited !== undefined) throw new Error(`the process exited with ${exited} before ${url} was ready`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready in 150 s`);
}

/** Resolves when the launcher prints its "Platform running" banner (all services started). */
async function platformRunning(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('the platform did not start in 300 s')), 300_000);
    child.once('exit', (code) => reject(new Error(`the platform exited with ${code} before it was running`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      if (seen.includes('Platform running')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout!.resume();
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function tokensFor(tenants: string[]): Promise<Map<string, string>> {
  const issuer = new AccessTokens(SECRET, 3600);
  const out = new Map<string, string>();
  for (const t of tenants) {
    out.set(t, await issuer.issue({ username: `bench-${t}`, tenantId: t, roles: ['user'], scopes: ['read', 'write'] }));
  }
  return out;
}

async function appendLoad(url: string, tenants: string[], seconds: number): Promise<AutocannonResult> {
  const tokens = await tokensFor(tenants);
  return autocannon({
    url: `${url}/append`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    // The load generator gets its own thread, so it does not compete with the server's event loop.
    workers: 1,
    requests: tenants.map((t) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.get(t)}` },
      body: JSON.stringify({
        tenant_id: t,
        event_type: 'rule_execution',
        user_id: `bench-${t}`,
        correlation_id: 'bench',
        event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
      }),
    })),
  });
}

interface Figures {
  many: AutocannonResult;
  one: AutocannonResult;
}

async function measure(url: string, seconds: number): Promise<Figures> {
  const tenants = Array.from({ length: 50 }, (_, i) => `bench-${i}`);
  await appendLoad(url, tenants, 2); // warm-up: JIT, pool, token cache
  const many = await appendLoad(url, tenants, seconds);
  const one = await appendLoad(url, ['bench-solo'], seconds);
  for (const [label, r] of [
    ['many', many],
    ['one', one],
  ] as const) {
    if (r.non2xx || r.errors) console.log(`  ! ${label}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  }
  return { many, one };
}

const quiet = { LOG_LEVEL: 'WARNING', NODE_ENV: 'production', JWT_SECRET_KEY: SECRET, OTEL_SDK_DISABLED: 'true' };

async function ledgerAlone(baseUrl: string, seconds: number): Promise<Figures> {
  const db = await freshDatabase(baseUrl);
  const port = await freePort();
  const child = fork(path.join(__dirname, '..', 'launcher', 'start-one.js'), ['ledger'], {
    env: { ...process.env, ...quiet, DATABASE_URL: db.url, PORT: String(port), LEDGER_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    await waitReady(`http://127.0.0.1:${port}`, child);
    return await measure(`http://127.0.0.1:${port}`, seconds);
  } finally {
    await stop(child);
    await db.drop();
  }
}

/** A Fastify hello-world answering what /v1/auth/verify answers, in its own process. */
async function helloWorld(body: unknown): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const source = `const app = require(${JSON.stringify(require.resolve('fastify'))})({ logger: false });
const body = ${JSON.stringify(JSON.stringify(body))};
app.get('/v1/auth/verify', (req, reply) => { reply.header('content-type', 'application/json'); return body; });
app.listen({ port: ${port}, host: '127.0.0.1' });`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/v1/auth/verify`)).status === 200) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the hello-world did not start');
}

interface VerifyFigures {
  platform: AutocannonResult;
  hello: AutocannonResult;
  /** Each server process's main-thread CPU per request over its measured load. */
  platformCpu?: ThreadCpu;
  helloCpu?: ThreadCpu;
  /** npm start's main-thread CPU per second with no requests (the other services' background work). */
  idleCpu?: ThreadCpu;
}

/** A process's main-thread CPU per second over `seconds` without load. */
async function idleCpuOf(pid: number | undefined, seconds: number): Promise<ThreadCpu | undefined> {
  const before = pid ? threadCpu(pid) : undefined;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = pid ? perRequest(before, threadCpu(pid), seconds) : undefined;
  return cpu;
}

/** A load on a server process, with that process's main-thread CPU per request. */
async function measuredOn(pid: number | undefined, opts: Record<string, unknown>) {
  const before = pid ? threadCpu(pid) : undefined;
  const result = await autocannon(opts);
  return { result, cpu: pid ? perRequest(before, threadCpu(pid), result.requests.total) : undefined };
}

async function verifyAgainstHelloWorld(identityUrl: string, seconds: number, pid?: number): Promise<VerifyFigures> {
  const { username, password } = DEV_DEFAULTS.user;
  const login = await fetch(`${identityUrl}/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, grant_type: 'password' }).toString(),
  });
  const { access_token: token } = (await login.json()) as { access_token: string };
  const opts = { connections: 50, headers: { authorization: `Bearer ${token}` }, workers: 1 };
  const verifyUrl = `${identityUrl}/v1/auth/verify`;
  const answer = await (await fetch(verifyUrl, { headers: opts.headers })).json();
  const idleCpu = await idleCpuOf(pid, 5);
  await autocannon({ ...opts, url: verifyUrl, duration: 2 });
  const platform = await measuredOn(pid, { ...opts, url: verifyUrl, duration: seconds });
  const hello = await helloWorld(answer);
  try {
    await autocannon({ ...opts, url: `${hello.url}/v1/auth/verify`, duration: 2 });
    const baseline = await measuredOn(hello.child.pid, {
      ...opts,
      url: `${hello.url}/v1/auth/verify`,
      duration: seconds,
    });
    return {
      platform: platform.result,
      platformCpu: platform.cpu,
      hello: baseline.result,
      helloCpu: baseline.cpu,
      idleCpu,
    };
  } finally {
    await stop(hello.child);
  }
}

async function ledgerInPlatform(baseUrl: string, seconds: number): Promise<Figures & { verify: VerifyFigures }> {
  const db = await freshDatabase(baseUrl);
  // Every service on a free port, not its documented one: another platform on this machine (a
  // second run, a developer's `npm start`) must not make this one fail to start.
  const ports: Record<string, string> = {};
  for (const { name } of registryOf())
    ports[`${name.toUpperCase().replace(/-/g, '_')}_PORT`] = String(await freePort());
  const [identity, ledger] = [ports.IDENTITY_PORT, ports.LEDGER_PORT];
  const child = fork(path.join(__dirname, '..', 'launcher', 'start-all.js'), [], {
    env: {
      ...process.env,
      ...quiet,
      ...ports,
      DATABASE_URL: db.url,
      IDENTITY_SEED_DEV_USERS: 'true',
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      IP_RATE_LIMIT_PER_SECOND: '1000000',
      IP_RATE_LIMIT_BURST: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    // Every service, not just the two measured: the ledger answers /readyz while the services
    // after it are still starting, and a load started then measured their start-up too.
    await platformRunning(child);
    await waitReady(`http://127.0.0.1:${ledger}`, child);
    await waitReady(`http://127.0.0.1:${identity}`, child);
    const appends = await measure(`http://127.0.0.1:${ledger}`, seconds);
    return { ...appends, verify: await verifyAgainstHelloWorld(`http://127.0.0.1:${identity}`, seconds, child.pid) };
  } finally {
    await stop(child);
    await db.drop();
  }
}

function report(label: string, f: Figures, tps: number): { ratio: number; p99Ratio: number } {
  const ratio = f.many.requests.average / tps;
  const p99Ratio = f.many.latency.p99 / Math.max(1, f.one.latency.p99);
  console.log(
    `${label.padEnd(22)} ${fmt(f.many.requests.average).padStart(7)}/s = ${fmt(ratio, 2)}× pgbench   ` +
      `p50/p99 ${f.many.latency.p50}/${f.many.latency.p99} ms (50 tenants) vs ${f.one.latency.p50}/${f.one.latency.p99} ms ` +
      `(one tenant, ${fmt(f.one.requests.average)}/s): p99 ${fmt(p99Ratio, 1)}×`,
  );
  return { ratio, p99Ratio };
}

export async function run(args: string[]): Promise<void> {
  const json = args.includes('--json');
  const seconds = Number(args.find((a) => /^\d+$/.test(a)) ?? 10);
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('platform-ratios needs DATABASE_URL (PostgreSQL): pgbench is its baseline');
  console.log(
    `ledger vs pgbench, ${seconds} s per load, 50 connections, bearer tokens; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const tps = await pgbenchTps(baseUrl, seconds);
  console.log(`${'pgbench single-row insert'.padEnd(22)} ${fmt(tps).padStart(7)} tps`);
  const alone = report('ledger alone', await ledgerAlone(baseUrl, seconds), tps);
  const inPlatform = await ledgerInPlatform(baseUrl, seconds);
  const platform = report('ledger in npm start', inPlatform, tps);
  const { verify } = inPlatform;
  const verifyRatio = verify.platform.requests.average / verify.hello.requests.average;
  console.log(
    `${'verify in npm start'.padEnd(22)} ${fmt(verify.platform.requests.average).padStart(7)}/s = ${fmt(verifyRatio, 2)}× ` +
      `a Fastify hello-world (${fmt(verify.hello.requests.average)}/s), p99 ${verify.platform.latency.p99} vs ${verify.hello.latency.p99} ms`,
  );
  console.log(
    `${''.padEnd(22)} main-thread CPU: npm start ${formatPerRequest(verify.platformCpu)}; hello-world ${formatPerRequest(verify.helloCpu)}`,
  );
  if (verify.idleCpu) {
    // The idle rate times the load's length, shared out over its requests: what the requests
    // did not cause themselves.
    const share = (verify.idleCpu.user * seconds) / verify.platform.requests.total;
    console.log(
      `${''.padEnd(22)} npm start idle: user ${fmt(verify.idleCpu.user / 1000, 1)} ms + system ${fmt(verify.idleCpu.system / 1000, 1)} ms of main-thread CPU a second = ${fmt(share, 1)} µs user of each verify above`,
    );
  }
  if (json) {
    console.log(
      JSON.stringify({
        bench: 'platform-ratios',
        pgbench_tps: tps,
        ledger_alone_ratio: alone.ratio,
        ledger_platform_ratio: platform.ratio,
        ledger_platform_p99_ratio: platform.p99Ratio,
        verify_hello_ratio: verifyRatio,
      }),
    );
  }
}
