// `npm run bench -- scale-out [--seconds N]` (needs DATABASE_URL and NATS_URL; build first):
// appends/s through POST /append, 50 connections over 50 tenants, for
//   1. one ledger process, addressed directly, without NATS (PostgreSQL NOTIFY bus),
//   2. one ledger process behind nginx, with NATS,
//   3. two ledger processes behind nginx, with NATS, round-robin,
//   4. two ledger processes behind nginx routing each tenant to one process (the deployed config),
// each a real process started from dist/ by the deploy:local launcher (launcher/deploy-local.ts)
// on a fresh database. Logging at ERROR, LEDGER_REQUIRE_AUTH=false (no token cost). Measures only.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import pg from 'pg';
import { streamNames } from '../platform/config/platform.config';
import { deployLocal, type PlannedService, type SpawnService } from '../launcher/deploy-local';
import { manifestOf } from '../launcher/registry';
import { PROJECT_ROOT } from '../platform/project-root';
import { formatReading, startMeter } from './scale-out-meter.support';

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
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

async function freshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_scale_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

async function load(url: string, seconds: number, rate?: number): Promise<AutocannonResult> {
  const tenants = Array.from({ length: 50 }, (_, i) => `bench-${i}`);
  return autocannon({
    url: `${url}/append`,
    method: 'POST',
    connections: 50,
    // A capped offered load (appends/s over all connections): a process's CPU per append at a
    // lower rate, as each of two processes sees it.
    ...(rate ? { overallRate: rate } : {}),
    duration: seconds,
    workers: 1,
    headers: { 'content-type': 'application/json' },
    // The tenant header as the platform's clients send it: nginx routes a tenant to one process by it.
    requests: tenants.map((t) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': t },
      body: JSON.stringify({
        tenant_id: t,
        event_type: 'rule_execution',
        user_id: 'bench-user',
        event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
      }),
    })),
  });
}

async function streamMessages(namespace: string): Promise<number> {
  const nc = await connect({ servers: process.env.NATS_URL!.replace(/^nats:\/\//, '') });
  try {
    const info = await (await nc.jetstreamManager()).streams.info(streamNames(namespace).stream);
    return info.state.messages;
  } catch {
    return 0;
  } finally {
    await nc.close();
  }
}

async function scenario(
  label: string,
  options: {
    processes: number;
    nats: boolean;
    balanced: boolean;
    seconds: number;
    port: number;
    routeByTenant?: boolean;
    /** Offered appends/s (autocannon's overallRate); unset: as fast as answered. */
    rate?: number;
    /** Folder for each ledger process's --cpu-prof profile (written when it stops). */
    cpuProfDir?: string;
  },
): Promise<void> {
  const db = await freshDatabase(process.env.DATABASE_URL!);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'ERROR',
    LEDGER_REQUIRE_AUTH: 'false',
    NODE_ENV: 'production',
    JWT_SECRET_KEY: process.env.JWT_SECRET_KEY ?? randomBytes(48).toString('base64url'),
    PLATFORM_NAMESPACE: `bench${process.pid}`,
  };
  if (!options.nats) delete env.NATS_URL;
  const plan: PlannedService[] = [
    {
      manifest: manifestOf('ledger'),
      listenPort: options.port,
      processPorts: Array.from({ length: options.processes }, (_, i) => options.port + 1 + i),
    },
  ];
  const profiled: SpawnService | undefined = options.cpuProfDir
    ? (name, port, childEnv) =>
        spawn(
          process.execPath,
          [
            '--cpu-prof',
            `--cpu-prof-dir=${options.cpuProfDir}`,
            path.join(PROJECT_ROOT, 'dist/launcher/start-one.js'),
            name,
          ],
          { cwd: PROJECT_ROOT, env: { ...childEnv, PORT: String(port) }, stdio: ['ignore', 'inherit', 'inherit'] },
        )
    : undefined;
  // A deployment that fails to start (a port taken) stops its own processes; the database is ours.
  const deployment = await deployLocal({
    env,
    plan,
    onLog: () => {},
    routeByTenant: options.routeByTenant,
    spawnService: profiled,
  }).catch(async (err: unknown) => {
    await db.drop();
    throw err;
  });
  try {
    const target = options.balanced ? deployment.urls.ledger! : `http://127.0.0.1:${plan[0]!.processPorts[0]}`;
    await load(target, 2, options.rate); // warm-up (connections, JIT, pools)
    const meter = await startMeter({
      ledgerPids: deployment.processes.map((p) => p.child.pid!),
      ledgerPorts: deployment.processes.map((p) => p.port),
      nginxPid: options.balanced ? deployment.nginx.pid : undefined,
      adminUrl: process.env.DATABASE_URL!,
      database: new URL(db.url).pathname.slice(1),
      streamMessages: options.nats ? () => streamMessages(env.PLATFORM_NAMESPACE!) : undefined,
    });
    const r = await load(target, options.seconds, options.rate);
    const reading = await meter.stop(r.requests.total);
    console.log(
      `${label.padEnd(44)} ${fmt(r.requests.average).padStart(6)} appends/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}  load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    console.log(formatReading(reading));
  } finally {
    await deployment.stop();
    await db.drop();
  }
}

/** The scenarios, by the short names `--only` takes. */
const SCENARIOS = {
  direct: { label: '1 ledger process, direct, no NATS', processes: 1, nats: false, balanced: false, offset: 0 },
  one: { label: '1 ledger process behind nginx, NATS', processes: 1, nats: true, balanced: true, offset: 10 },
  // Round-robin, then the deployed config (nginx hashes the tenant, launcher/nginx.config.ts).
  rr: {
    label: '2 ledger processes behind nginx, NATS, round-robin',
    processes: 2,
    nats: true,
    balanced: true,
    offset: 20,
    routeByTenant: false,
  },
  two: {
    label: '2 ledger processes behind nginx, NATS, by tenant',
    processes: 2,
    nats: true,
    balanced: true,
    offset: 30,
  },
} as const;
type ScenarioName = keyof typeof SCENARIOS;

/**
 * `--seconds N` per load; `--only one,two` runs those scenarios (default: all four);
 * `--rounds R` repeats the list R times, alternating, so 1 and 2 processes share the same minutes;
 * `--cpu-prof <dir>` writes each ledger process's CPU profile there; `--port P` moves the ports (default 41000);
 * `--rate N` caps the offered load at N appends/s.
 */
export async function run(args: string[]): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) {
    console.error('scale-out needs DATABASE_URL (PostgreSQL) and NATS_URL');
    process.exit(2);
  }
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seconds = Number(arg('--seconds') ?? 10);
  const rounds = Number(arg('--rounds') ?? 1);
  const only = (arg('--only')?.split(',') ?? Object.keys(SCENARIOS)) as ScenarioName[];
  for (const n of only)
    if (!(n in SCENARIOS)) throw new Error(`unknown scenario ${n}: ${Object.keys(SCENARIOS).join(', ')}`);
  const port = Number(arg('--port') ?? 41000);
  console.log(`scale-out: POST /append, 50 connections over 50 tenants, ${seconds} s each (plus 2 s warm-up)`);
  for (let r = 0; r < rounds; r++) {
    for (const n of only) {
      const { label, offset, ...rest } = SCENARIOS[n];
      await scenario(label, {
        ...rest,
        seconds,
        port: port + offset,
        cpuProfDir: arg('--cpu-prof'),
        rate: Number(arg('--rate') ?? 0) || undefined,
      });
    }
  }
  // The bench's own stream (its namespace) is throwaway.
  const nc = await connect({ servers: process.env.NATS_URL.replace(/^nats:\/\//, '') });
  await (await nc.jetstreamManager()).streams.delete(streamNames(`bench${process.pid}`).stream).catch(() => false);
  await nc.drain();
}
