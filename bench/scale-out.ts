// `npm run bench -- scale-out [--seconds N]` (needs DATABASE_URL and NATS_URL; build first):
// appends/s through POST /append, 50 connections over 50 tenants, for
//   1. one ledger process, addressed directly, without NATS (PostgreSQL NOTIFY bus),
//   2. one ledger process behind nginx, with NATS,
//   3. two ledger processes behind nginx, with NATS, round-robin,
//   4. two ledger processes behind nginx routing each tenant to one process (the deployed config),
// each a real process started from dist/ by the deploy:local launcher (launcher/deploy-local.ts)
// on a fresh database. Logging at ERROR, LEDGER_REQUIRE_AUTH=false (no token cost). Measures only.
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import pg from 'pg';
import { streamNames } from '../platform/config/platform.config';
import { deployLocal, type PlannedService } from '../launcher/deploy-local';
import { manifestOf } from '../launcher/registry';

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

async function load(url: string, seconds: number): Promise<AutocannonResult> {
  const tenants = Array.from({ length: 50 }, (_, i) => `bench-${i}`);
  return autocannon({
    url: `${url}/append`,
    method: 'POST',
    connections: 50,
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

async function scenario(
  label: string,
  options: {
    processes: number;
    nats: boolean;
    balanced: boolean;
    seconds: number;
    port: number;
    routeByTenant?: boolean;
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
  const deployment = await deployLocal({ env, plan, onLog: () => {}, routeByTenant: options.routeByTenant });
  try {
    const target = options.balanced ? deployment.urls.ledger! : `http://127.0.0.1:${plan[0]!.processPorts[0]}`;
    await load(target, 2); // warm-up (connections, JIT, pools)
    const r = await load(target, options.seconds);
    console.log(
      `${label.padEnd(44)} ${fmt(r.requests.average).padStart(6)} appends/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx ${r.non2xx}  errors ${r.errors}`,
    );
  } finally {
    await deployment.stop();
    await db.drop();
  }
}

export async function run(args: string[]): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL) {
    console.error('scale-out needs DATABASE_URL (PostgreSQL) and NATS_URL');
    process.exit(2);
  }
  const i = args.indexOf('--seconds');
  const seconds = i >= 0 ? Number(args[i + 1]) : 10;
  const port = 41000;
  console.log(`scale-out: POST /append, 50 connections over 50 tenants, ${seconds} s each (plus 2 s warm-up)`);
  await scenario('1 ledger process, direct, no NATS', { processes: 1, nats: false, balanced: false, seconds, port });
  await scenario('1 ledger process behind nginx, NATS', {
    processes: 1,
    nats: true,
    balanced: true,
    seconds,
    port: port + 10,
  });
  // Round-robin first, then the deployed config (nginx hashes the tenant, launcher/nginx.config.ts).
  await scenario('2 ledger processes behind nginx, NATS, round-robin', {
    processes: 2,
    nats: true,
    balanced: true,
    seconds,
    port: port + 20,
    routeByTenant: false,
  });
  await scenario('2 ledger processes behind nginx, NATS, by tenant', {
    processes: 2,
    nats: true,
    balanced: true,
    seconds,
    port: port + 30,
  });
  // The bench's own stream (its namespace) is throwaway.
  const nc = await connect({ servers: process.env.NATS_URL.replace(/^nats:\/\//, '') });
  await (await nc.jetstreamManager()).streams.delete(streamNames(`bench${process.pid}`).stream).catch(() => false);
  await nc.drain();
}
