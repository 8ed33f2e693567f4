// Child process of bench/router.ts: runs identity and ledger on ephemeral ports over one in-memory
// PGlite (or DATABASE_URL), seeds a few ledger events, and reports the URLs over IPC. Keeping the
// subgraphs (and the embedded database, which computes on the event loop) out of the router's
// process measures the router the way it is deployed: as its own process.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import type { BuiltService } from '../platform/service';
import { identityService } from '../subgraphs/identity';
import { ledgerService } from '../subgraphs/ledger';
import { registryOf } from '../launcher/registry';

async function main(): Promise<void> {
  const env = { ...process.env };
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
    const b = await def.build({ config, db, env, logger: createLogger(config.logLevel, def.name), registry: registryOf() });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    await b.start?.();
    built.push(b);
    urls[def.name] = `http://127.0.0.1:${(b.app.server.address() as AddressInfo).port}`;
  }
  process.send!({ urls, database: db.description });
  process.on('message', async () => {
    for (const b of built.reverse()) await b.app.close();
    await db.close();
    if (base && scratch) await adminQuery(base, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
    process.exit(0);
  });
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
