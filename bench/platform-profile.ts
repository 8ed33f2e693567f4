// `npm run bench -- platform-profile <platform|identity|ledger> <verify|append|idle> [seconds] [-- node flags]`
// (needs DATABASE_URL, PostgreSQL; build first): one load on `npm start`'s process (platform) or
// one service alone, for finding where a request's time goes (issue 35). Prints the rate, the
// server's main-thread CPU per request (per second for idle) and the load's window twice: as the
// server's uptime in ms (to read its --trace-gc lines) and as monotonic µs (the clock of a
// --cpu-prof profile's sample times). With `--trace-gc-nvp` among the node flags it also prints
// the window's young-generation collections: count, pause and bytes promoted per request, since
// the platform's verify costs more than identity alone's mostly outside any one function.
// Examples:
//   platform-profile platform verify 10 -- --cpu-prof --cpu-prof-dir=/tmp/prof
//   platform-profile identity verify 10 -- --trace-gc-nvp
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { registryOf } from '../launcher/registry';
import { AccessTokens } from '../platform/auth/jwt';
import { formatPerRequest, perRequest, threadCpu } from './thread-cpu.support';

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

const SECRET = 'platform-profile-bench-secret-0123456789abcdef';

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

/** Every service on a free port: another platform on this machine must not stop this one. */
async function freePorts(): Promise<Record<string, string>> {
  const ports: Record<string, string> = {};
  for (const { name } of registryOf())
    ports[`${name.toUpperCase().replace(/-/g, '_')}_PORT`] = String(await freePort());
  return ports;
}

/** Starts the server; resolves once `url`/readyz answers 200 (and, for the platform, every service started). */
async function start(target: string, ports: Record<string, string>, nodeFlags: string[], gcLines: string[]) {
  const alone = target !== 'platform';
  const port = alone ? ports[`${target.toUpperCase()}_PORT`]! : ports.IDENTITY_PORT!;
  const launcher = path.join(__dirname, '..', 'launcher', alone ? 'start-one.js' : 'start-all.js');
  const child = fork(launcher, alone ? [target] : [], {
    env: {
      ...process.env,
      ...ports,
      ...(alone ? { PORT: port } : {}),
      LOG_LEVEL: 'WARNING',
      NODE_ENV: 'production',
      JWT_SECRET_KEY: SECRET,
      OTEL_SDK_DISABLED: 'true',
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      IP_RATE_LIMIT_PER_SECOND: '1000000',
      IP_RATE_LIMIT_BURST: '1000000',
    },
    execArgv: nodeFlags,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const startedAt = Date.now();
  let banner = alone;
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString('utf8');
    const lines = text.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.includes('Platform running')) banner = true;
      if (line.includes(' ms: ')) gcLines.push(line);
    }
  });
  await waitReady(`http://127.0.0.1:${port}`, child, () => banner);
  return { child, startedAt };
}

async function waitReady(url: string, child: ChildProcess, started: () => boolean): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if (started() && (await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} was not ready in 300 s`);
}

/** autocannon options for the load: verify with one token, or ledger appends over 50 tenants. */
async function loadOptions(load: string, ports: Record<string, string>): Promise<Record<string, unknown>> {
  const issuer = new AccessTokens(SECRET, 3600);
  const tokenOf = (tenant: string) =>
    issuer.issue({ username: `bench-${tenant}`, tenantId: tenant, roles: ['user'], scopes: ['read', 'write'] });
  if (load === 'verify') {
    const token = await tokenOf('default');
    return {
      url: `http://127.0.0.1:${ports.IDENTITY_PORT}/v1/auth/verify`,
      headers: { authorization: `Bearer ${token}` },
    };
  }
  const tenants = Array.from({ length: 50 }, (_, i) => `bench-${i}`);
  const requests = [];
  for (const t of tenants) {
    requests.push({
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokenOf(t)}` },
      body: JSON.stringify({
        tenant_id: t,
        event_type: 'rule_execution',
        user_id: `bench-${t}`,
        correlation_id: 'bench',
        event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
      }),
    });
  }
  return { url: `http://127.0.0.1:${ports.LEDGER_PORT}/append`, requests };
}

/** The young-generation collections of `--trace-gc-nvp` lines inside [fromMs, toMs] of uptime. */
function scavenges(lines: string[], fromMs: number, toMs: number) {
  let count = 0;
  let pauseMs = 0;
  let promoted = 0;
  for (const line of lines) {
    const m = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: (.*)$/.exec(line);
    if (!m || Number(m[1]) < fromMs || Number(m[1]) > toMs) continue;
    const fields = new Map(m[2]!.split(' ').map((kv) => kv.split('=') as [string, string]));
    if (fields.get('gc') !== 's') continue;
    count++;
    pauseMs += Number(fields.get('pause') ?? 0);
    promoted += Number(fields.get('promoted') ?? 0);
  }
  return { count, pauseMs, promoted };
}

export async function run(args: string[]): Promise<void> {
  const split = args.indexOf('--');
  const [target = 'platform', load = 'verify', secondsArg = '10'] = split < 0 ? args : args.slice(0, split);
  const nodeFlags = split < 0 ? [] : args.slice(split + 1);
  const seconds = Number(secondsArg);
  if (!['platform', 'identity', 'ledger'].includes(target) || !['verify', 'append', 'idle'].includes(load))
    throw new Error(
      'usage: platform-profile <platform|identity|ledger> <verify|append|idle> [seconds] [-- node flags]',
    );
  if (!process.env.DATABASE_URL) throw new Error('platform-profile needs DATABASE_URL (PostgreSQL)');
  const ports = await freePorts();
  const gcLines: string[] = [];
  const { child, startedAt } = await start(target, ports, nodeFlags, gcLines);
  try {
    const opts = load === 'idle' ? undefined : { ...(await loadOptions(load, ports)), connections: 50, workers: 1 };
    if (opts) await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pools, token cache
    const from = { uptime: Date.now() - startedAt, mono: process.hrtime.bigint() / 1000n };
    const before = threadCpu(child.pid!);
    const result = opts ? await autocannon({ ...opts, duration: seconds }) : undefined;
    if (!result) await new Promise((r) => setTimeout(r, seconds * 1000));
    const count = result?.requests.total ?? seconds;
    const cpu = formatPerRequest(perRequest(before, threadCpu(child.pid!), count));
    const to = { uptime: Date.now() - startedAt, mono: process.hrtime.bigint() / 1000n };
    console.log(`${target} ${load}, ${seconds} s, load average ${os.loadavg()[0]!.toFixed(1)}`);
    if (result)
      console.log(
        `  ${Math.round(result.requests.average)} req/s, p50/p99 ${result.latency.p50}/${result.latency.p99} ms, ` +
          `${result.non2xx} non-2xx, ${result.errors} errors`,
      );
    console.log(`  main-thread CPU: ${result ? cpu : cpu.replace('per request', 'per second')}`);
    console.log(`  window: uptime ${from.uptime}-${to.uptime} ms; monotonic ${from.mono}-${to.mono} µs`);
    const gc = scavenges(gcLines, from.uptime, to.uptime);
    if (gc.count)
      console.log(
        `  scavenges: ${gc.count}, pause ${gc.pauseMs.toFixed(1)} ms = ${((gc.pauseMs * 1000) / count).toFixed(2)} µs ` +
          `and ${Math.round(gc.promoted / count)} bytes promoted per ${result ? 'request' : 'second'}`,
      );
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}
