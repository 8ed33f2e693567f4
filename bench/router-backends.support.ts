// Child process of bench/router.ts: runs identity and ledger on ephemeral ports over one in-memory
// PGlite (or DATABASE_URL), seeds the data of the honest load (below), and reports the URLs and
// that data over IPC. Keeping the subgraphs (and the embedded database, which computes on the
// event loop) out of the router's process measures the router the way it is deployed: as its own
// process.
//
// Honest-load data: HONEST_TENANTS tenants, each with HONEST_USERS users (role `user`) and
// HONEST_EVENTS ledger events whose user_id is one of the tenant's users, picked pseudo-randomly
// per event, so a page of events names a varied set of users (the identity entity fetches of two
// different pages differ). Passwords are hashed with scrypt N=2^10 here (PASSWORD_SCRYPT_LOG_N,
// set by bench/router.ts for this process only): the loads never log in, they use tokens signed
// with the bench's JWT secret.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import type { BuiltService } from '../platform/service';
import { identityService } from '../services/identity';
import { ledgerService } from '../services/ledger';
import { registryOf } from '../launcher/registry';

async function main(): Promise<void> {
  // The seed creates tenants and writes into each: that is the platform operator's work.
  const env: NodeJS.ProcessEnv = {
    PLATFORM_ADMIN_USERNAME: 'bench-operator',
    PLATFORM_ADMIN_PASSWORD: 'bench-operator-password',
    // The seed signs the operator in with a password alone: a second factor is the identity
    // benches' subject, not this one's (the default asks it of admin roles since issue 29).
    IDENTITY_MFA_REQUIRED_ROLES: 'none',
    ...process.env,
  };
  // With DATABASE_URL, a throwaway database of its own (dropped at the end); else in-memory PGlite.
  const base = env.DATABASE_URL;
  const scratch = base ? `bench_${randomBytes(5).toString('hex')}` : undefined;
  if (base && scratch) {
    await adminQuery(base, `CREATE DATABASE "${scratch}"`);
    const u = new URL(base);
    u.pathname = `/${scratch}`;
    env.DATABASE_URL = u.toString();
  }
  const config = loadPlatformConfig(env);
  const db = await openDatabase(config.database.url ? config.database : { ...config.database, pgliteDir: 'memory://' });
  const urls: Record<string, string> = {};
  const built: BuiltService[] = [];
  for (const def of [identityService, ledgerService]) {
    const b = await def.build({
      config,
      db,
      env,
      logger: createLogger(config.logLevel, def.name),
      registry: registryOf(),
    });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    await b.start?.();
    built.push(b);
    urls[def.name] = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
  }
  const seed = await seedHonestLoad(urls.identity!, urls.ledger!, env);
  process.send!({ urls, database: db.description, seed });
  // 'cpu': this process's CPU time so far (µs), so bench/router.ts can charge the subgraphs' work
  // per request; anything else: stop.
  process.on('message', async (m) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ cpuMicros: u.user + u.system });
      return;
    }
    for (const b of built.reverse()) await b.app.close();
    await db.close();
    if (base && scratch) await adminQuery(base, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
    process.exit(0);
  });
}

const HONEST_TENANTS = 20;
const HONEST_USERS = 25;
const HONEST_EVENTS = 300;
const HONEST_EVENT_TYPES = ['login', 'rule_execution', 'document_upload', 'approval', 'export'];

export interface HonestSeed {
  tenants: { id: string; users: string[] }[];
  eventsPerTenant: number;
}

/** Tenants, users and events for the honest load, created over the services' own REST routes. */
async function seedHonestLoad(identity: string, ledger: string, env: NodeJS.ProcessEnv): Promise<HonestSeed> {
  const login = await fetch(`${identity}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: env.PLATFORM_ADMIN_USERNAME,
      password: env.PLATFORM_ADMIN_PASSWORD,
      tenant_id: env.PLATFORM_ADMIN_TENANT ?? 'platform',
    }),
  });
  if (!login.ok) throw new Error(`seed: operator login failed (${login.status})`);
  const headers = {
    authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}`,
    'content-type': 'application/json',
  };
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`seed: POST ${url} -> ${res.status} ${(await res.text()).slice(0, 200)}`);
  };
  const tenants = Array.from({ length: HONEST_TENANTS }, (_, t) => ({
    id: `bench-t${String(t).padStart(2, '0')}`,
    users: Array.from(
      { length: HONEST_USERS },
      (_, u) => `bench-t${String(t).padStart(2, '0')}-u${String(u).padStart(2, '0')}`,
    ),
  }));
  for (const t of tenants) await post(`${identity}/v1/tenants`, { id: t.id, name: `Bench tenant ${t.id}` });
  await inBatches(
    tenants.flatMap((t) => t.users.map((username) => ({ t, username }))),
    8,
    ({ t, username }) =>
      post(`${identity}/v1/users`, {
        username,
        password: 'bench-user-password',
        email: `${username}@bench.example`,
        tenant_id: t.id,
        roles: ['user'],
        is_verified: true,
      }),
  );
  // Events are appended in chain order per tenant, tenants in parallel.
  await inBatches(tenants, HONEST_TENANTS, async (t) => {
    for (let seq = 1; seq <= HONEST_EVENTS; seq++) {
      const user = t.users[pick(t.id, seq) % t.users.length]!;
      await post(`${ledger}/append`, {
        tenant_id: t.id,
        event_type: HONEST_EVENT_TYPES[seq % HONEST_EVENT_TYPES.length],
        event_data: { seq, amount: (seq * 37) % 1000 },
        user_id: user,
      });
    }
  });
  return { tenants, eventsPerTenant: HONEST_EVENTS };
}

/** A fixed pseudo-random number per (tenant, seq): the same data on every run. */
function pick(tenant: string, seq: number): number {
  let h = 2166136261;
  for (const c of `${tenant}:${seq}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
