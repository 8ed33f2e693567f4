// `npm run bench -- trusted-proxy [--seconds N] [--clients N] [--ip-limit N]` (needs DATABASE_URL;
// build first): appends through the gateway behind nginx, as `npm run deploy:local` runs it (one
// ledger and one gateway process from dist/), from N clients (16) that each append in a loop on
// their own keep-alive connection. The per-address limit is --ip-limit per second (20; burst twice
// that) rather than the default 200: on a shared 2-core machine the ledger appends fewer than 200/s
// in all, so the default limit would never bind and both runs would look alike. For
//   1. every client on one address (127.0.0.1): what the gateway saw of every client before it
//      trusted nginx's X-Forwarded-For, since nginx's address was everyone's;
//   2. each client on an address of its own (127.0.0.2, 127.0.0.3, ...; Linux routes 127/8 on lo),
//      which the gateway now sees through nginx (TRUSTED_PROXIES = nginx's address).
// Counts acknowledged appends and 429s. Measures only.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { AccessTokens } from '../platform/auth/jwt';
import { deployLocal, type PlannedService } from '../launcher/deploy-local';
import { manifestOf } from '../launcher/registry';

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

async function freshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_proxy_${randomBytes(4).toString('hex')}`;
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

interface Tally {
  ok: number;
  limited: number;
  other: number;
}

function post(agent: http.Agent, url: string, token: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/** One client: its own address, tenant and keep-alive connection, appending until `until`. */
async function client(
  url: string,
  address: string,
  token: string,
  tenant: string,
  until: number,
  tally: Tally,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: address });
  try {
    for (let n = 0; Date.now() < until; n++) {
      const status = await post(
        agent,
        url,
        token,
        JSON.stringify({ tenant_id: tenant, event_type: 'bench', event_data: { n } }),
      );
      if (status === 200) tally.ok++;
      else if (status === 429) tally.limited++;
      else tally.other++;
    }
  } finally {
    agent.destroy();
  }
}

export async function run(args: string[]): Promise<void> {
  if (!process.env.DATABASE_URL) {
    console.error('trusted-proxy needs DATABASE_URL (PostgreSQL)');
    process.exit(2);
  }
  const arg = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const seconds = arg('--seconds', 10);
  const clients = arg('--clients', 16);
  const ipLimit = arg('--ip-limit', 20);
  const db = await freshDatabase(process.env.DATABASE_URL);
  const secret = randomBytes(48).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    LOG_LEVEL: 'ERROR',
    NODE_ENV: 'production',
    JWT_SECRET_KEY: secret,
    PLATFORM_NAMESPACE: `benchproxy${process.pid}`,
    // The per-tenant bucket out of the way: the per-address one is measured.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    IP_RATE_LIMIT_PER_SECOND: String(ipLimit),
    IP_RATE_LIMIT_BURST: String(2 * ipLimit),
  };
  // Fresh in-process buckets (no Redis), no further proxies, nginx on 127.0.0.1.
  for (const key of ['REDIS_URL', 'NATS_URL', 'TRUSTED_PROXIES', 'DEPLOY_BALANCER_ADDRESS']) delete env[key];
  const base = 41200;
  const plan: PlannedService[] = [
    { manifest: manifestOf('ledger'), listenPort: base, processPorts: [base + 1] },
    { manifest: manifestOf('gateway'), listenPort: base + 2, processPorts: [base + 3] },
  ];
  const deployment = await deployLocal({ env, plan, onLog: () => {} });
  try {
    const url = `${deployment.urls.gateway}/api/v1/ledger/append`;
    const tokens = new AccessTokens(secret, 3600);
    const tenants = Array.from({ length: clients }, (_, i) => `bench-proxy-${i}`);
    const issued = await Promise.all(
      tenants.map((t) =>
        tokens.issue({ username: `u-${t}`, tenantId: t, roles: ['admin'], scopes: ['read', 'write'] }),
      ),
    );
    console.log(
      `trusted-proxy: POST /api/v1/ledger/append through nginx -> gateway -> ledger, ${clients} clients, ${seconds} s each, ${ipLimit}/s and a burst of ${2 * ipLimit} per address`,
    );
    // Warm-up (connections, JIT, pools) from an address neither run uses.
    const warm: Tally = { ok: 0, limited: 0, other: 0 };
    await client(url, '127.0.0.250', issued[0]!, tenants[0]!, Date.now() + 2000, warm);
    const scenarios: [string, (i: number) => string][] = [
      ['every client on 127.0.0.1 (one address, as before)', () => '127.0.0.1'],
      [`each client on its own address (127.0.0.2-${clients + 1})`, (i) => `127.0.0.${i + 2}`],
    ];
    for (const [label, addressOf] of scenarios) {
      const tally: Tally = { ok: 0, limited: 0, other: 0 };
      const until = Date.now() + seconds * 1000;
      await Promise.all(tenants.map((t, i) => client(url, addressOf(i), issued[i]!, t, until, tally)));
      console.log(
        `${label.padEnd(52)} acknowledged ${fmt(tally.ok).padStart(6)} (${fmt(tally.ok / seconds)}/s)  429 ${fmt(tally.limited).padStart(6)}  other ${tally.other}`,
      );
    }
  } finally {
    await deployment.stop();
    await db.drop();
  }
}
