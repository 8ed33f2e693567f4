// `npm run bench -- ledger-cost [seconds] [rounds] [--against <dist>] [--new-tokens]` (needs DATABASE_URL,
// PostgreSQL; build first): what one append costs, for issue 35's ledger ratio on a shared machine
// where rates are noise. The ledger alone (launcher/start-one.js, as `platform-ratios` runs it) on
// a fresh database, POST /append at 50 connections over 50 tenants with their bearer tokens; per
// append it prints the rate, the ledger process's CPU (main thread and whole process), the CPU of
// the PostgreSQL backends serving it (/proc of every backend connected to the bench's database),
// the appends per transaction committed on that database (pg_stat_database, the relay's included)
// and the cluster's WAL records, bytes and syncs (pg_stat_wal: the whole cluster, so other work on
// it is counted too). `--against <dist>` runs another build (e.g. /work/wt/base/dist) in
// alternating rounds, each on its own fresh database.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { AccessTokens } from '../platform/auth/jwt';
import { threadCpu } from './thread-cpu.support';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const SECRET = randomBytes(32).toString('hex');
const TICK_US = 10_000;

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

/** A whole process's user + system CPU in µs (/proc/<pid>/stat), or 0 once it is gone. */
function processCpu(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

interface Wal {
  records: number;
  bytes: number;
  syncs: number;
}
async function walNow(url: string): Promise<Wal> {
  const [w] = await query<{ wal_records: string; wal_bytes: string; wal_sync: string }>(
    url,
    'SELECT wal_records, wal_bytes, wal_sync FROM pg_stat_wal',
  );
  return { records: Number(w!.wal_records), bytes: Number(w!.wal_bytes), syncs: Number(w!.wal_sync) };
}

/** Transactions committed on one database so far (group commits, the notice relay's passes, ...). */
async function commitsOf(url: string, database: string): Promise<number> {
  const [row] = await query<{ n: string }>(
    url,
    `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = '${database}'`,
  );
  return Number(row?.n ?? 0);
}

async function backendsOf(url: string, database: string): Promise<number[]> {
  const rows = await query<{ pid: number }>(
    url,
    `SELECT pid FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
  );
  return rows.map((r) => r.pid);
}

async function requestsFor(): Promise<Record<string, unknown>[]> {
  const issuer = new AccessTokens(SECRET, 3600);
  const out = [];
  for (let i = 0; i < 50; i++) {
    const t = `bench-${i}`;
    const token = await issuer.issue({
      username: `bench-${t}`,
      tenantId: t,
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    out.push({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        tenant_id: t,
        event_type: 'rule_execution',
        user_id: `bench-${t}`,
        correlation_id: 'bench',
        event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
      }),
    });
  }
  return out;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the ledger exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready in 150 s`);
}

async function round(dist: string, label: string, baseUrl: string, seconds: number, newTokens: boolean): Promise<void> {
  const name = `bench_ledger_${randomBytes(4).toString('hex')}`;
  await query(baseUrl, `CREATE DATABASE "${name}"`);
  const dbUrl = new URL(baseUrl);
  dbUrl.pathname = `/${name}`;
  const port = await freePort();
  const child = fork(path.join(dist, 'launcher', 'start-one.js'), ['ledger'], {
    env: {
      ...process.env,
      LOG_LEVEL: 'WARNING',
      NODE_ENV: 'production',
      JWT_SECRET_KEY: SECRET,
      OTEL_SDK_DISABLED: 'true',
      DATABASE_URL: dbUrl.toString(),
      PORT: String(port),
      LEDGER_PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, child);
    const opts = { url: `${url}/append`, connections: 50, workers: 1, requests: await requestsFor() };
    await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pool, token cache, heads
    const pids = await backendsOf(baseUrl, name);
    const pgBefore = pids.reduce((s, p) => s + processCpu(p), 0);
    const mainBefore = threadCpu(child.pid!);
    const procBefore = processCpu(child.pid!);
    const walBefore = await walNow(baseUrl);
    const commitsBefore = await commitsOf(baseUrl, name);
    // --new-tokens: the measured load brings tokens issued after the warm-up (a later `iat`), as
    // each load of `platform-ratios` does, so their first verification is inside the window.
    const measured = newTokens ? { ...opts, requests: await requestsFor() } : opts;
    const r = await autocannon({ ...measured, duration: seconds });
    const commits = (await commitsOf(baseUrl, name)) - commitsBefore;
    const walAfter = await walNow(baseUrl);
    const mainAfter = threadCpu(child.pid!);
    const n = r.requests.total;
    const per = (us: number) => (us / n).toFixed(0);
    const pgAfter = pids.reduce((s, p) => s + processCpu(p), 0);
    const main = mainBefore && mainAfter ? mainAfter.user + mainAfter.system - mainBefore.user - mainBefore.system : 0;
    console.log(
      `${label.padEnd(8)} ${Math.round(r.requests.average).toString().padStart(6)}/s p50/p99 ${r.latency.p50}/${r.latency.p99} ms` +
        ` | µs per append: ledger main thread ${per(main)}, process ${per(processCpu(child.pid!) - procBefore)},` +
        ` PostgreSQL backends (${pids.length}) ${per(pgAfter - pgBefore)}` +
        ` | ${(n / commits).toFixed(1)} appends per transaction on its database` +
        ` | cluster WAL per append: ${((walAfter.records - walBefore.records) / n).toFixed(1)} records,` +
        ` ${((walAfter.bytes - walBefore.bytes) / n).toFixed(0)} bytes, ${((walAfter.syncs - walBefore.syncs) / n).toFixed(3)} syncs` +
        ` | load ${os.loadavg()[0]!.toFixed(1)}${r.non2xx || r.errors ? ` | ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`,
    );
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await query(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

export async function run(args: string[]): Promise<void> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('ledger-cost needs DATABASE_URL (PostgreSQL)');
  const at = args.indexOf('--against');
  const against = at >= 0 ? path.resolve(args[at + 1]!) : undefined;
  const newTokens = args.includes('--new-tokens');
  const plain = args.filter((a, i) => (at < 0 || (i !== at && i !== at + 1)) && a !== '--new-tokens');
  const seconds = Number(plain[0] ?? 10) || 10;
  const rounds = Number(plain[1] ?? 2) || 2;
  const here = path.join(__dirname, '..');
  for (let i = 0; i < rounds; i++) {
    if (against) await round(against, 'against', baseUrl, seconds, newTokens);
    await round(here, 'this', baseUrl, seconds, newTokens);
  }
}
