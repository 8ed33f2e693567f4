// Ledger throughput and latency (issue 3's benchmark; numbers only, nothing passes or fails):
//   - appends/s through POST /append, 50 concurrent connections, over 50 tenants and over one;
//   - verification time for chains of 10,000 and 100,000 events (seeded through the group
//     committer in large batches);
//   - GET /events p95 for one tenant holding 100,000 events.
// Runs on in-memory PGlite and, when DATABASE_URL is set, on a throwaway PostgreSQL database.
// The ledger is started here on an ephemeral port. `npm run bench -- ledger [seconds]`.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase, type Database } from '../platform/db/database';
import { createMemoryEventBus } from '../platform/events/memory-event-bus';
import { createLogger } from '../platform/logging/logger';
import { defineLedgerService } from '../services/ledger';
import { GroupCommitter } from '../subgraphs/ledger/ledger-append.service';
import { createLedgerStore } from '../subgraphs/ledger/ledger.store';
import { verifyTenantChain } from '../subgraphs/ledger/ledger-verify.service';
import { registryOf } from '../launcher/registry';
import { runProofBench } from './ledger-proofs.support';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram & { p97_5: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function appendBody(tenant: string): string {
  return JSON.stringify({
    tenant_id: tenant,
    event_type: 'rule_execution',
    user_id: 'bench-user',
    correlation_id: 'bench',
    event_data: { rulepack_id: 'rp-1', rules_executed: 12, violations: 1, result: 'warning' },
  });
}

async function appendLoad(url: string, tenants: string[], seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url: `${url}/append`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    // The load generator gets its own thread, so it does not compete with the server's event loop.
    workers: 1,
    headers: { 'content-type': 'application/json' },
    // Each connection cycles through these, so 50 tenants are written concurrently.
    requests: tenants.map((t) => ({ method: 'POST', body: appendBody(t) })),
  });
}

async function seed(db: Database, tenant: string, count: number): Promise<number> {
  const store = createLedgerStore(db.sql);
  const committer = new GroupCommitter(store, { maxBatch: 5000, maxInFlight: 1 });
  const t0 = performance.now();
  for (let done = 0; done < count; done += 5000) {
    const n = Math.min(5000, count - done);
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        committer.append({
          tenantId: tenant,
          eventType: i % 10 === 0 ? 'rag_query' : 'rule_execution',
          userId: `user-${i % 50}`,
          correlationId: `c-${done + i}`,
          description: null,
          idempotencyKey: null,
          writtenBy: null,
          eventDataText: `{"result":"ok","rulepack_id":"rp-${i % 7}","rules_executed":${i % 100},"violations":${i % 3}}`,
        }),
      ),
    );
  }
  return (performance.now() - t0) / 1000;
}

async function queryP95(
  url: string,
  tenant: string,
  samples: number,
): Promise<{ p50: number; p95: number; p99: number }> {
  const paths = [
    `/events?tenant_id=${tenant}`,
    `/events?tenant_id=${tenant}&offset=50000&limit=100`,
    `/events?tenant_id=${tenant}&event_type=rag_query&limit=100`,
    `/events?tenant_id=${tenant}&user_id=user-7&limit=100`,
    `/events?tenant_id=${tenant}&correlation_id=c-4242`,
  ];
  for (let i = 0; i < 50; i++) await (await fetch(url + paths[i % paths.length])).arrayBuffer(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const res = await fetch(url + paths[i % paths.length]);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

async function benchOn(
  label: string,
  dbConfig: { url?: string; pgliteDir: string; poolSize: number },
  seconds: number,
): Promise<void> {
  // Anonymous appends, as behind a gateway in the spec's trust-the-gateway mode (token checks are measured by the identity bench).
  const env = { ...process.env, LOG_LEVEL: 'ERROR', REQUIRE_AUTH: 'false', LEDGER_REQUIRE_AUTH: 'false' };
  const config = loadPlatformConfig(env);
  const db = await openDatabase(dbConfig);
  const bus = createMemoryEventBus();
  const built = await defineLedgerService({ bus }).build({
    config: { ...config, database: dbConfig },
    db,
    env,
    logger: createLogger('ERROR', 'ledger'),
    registry: registryOf(),
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  console.log(`\n## ${label}`);
  try {
    const many = Array.from({ length: 50 }, (_, i) => `bench-many-${i}`);
    await appendLoad(url, many, 2); // warm-up
    const r50 = await appendLoad(url, many, seconds);
    console.log(
      `appends, 50 connections over 50 tenants: ${fmt(r50.requests.average)} /s (p50 ${r50.latency.p50} ms, p99 ${r50.latency.p99} ms, non-2xx ${r50.non2xx}, errors ${r50.errors})`,
    );
    const r1 = await appendLoad(url, ['bench-one'], seconds);
    console.log(
      `appends, 50 connections on one tenant:   ${fmt(r1.requests.average)} /s (p50 ${r1.latency.p50} ms, p99 ${r1.latency.p99} ms, non-2xx ${r1.non2xx}, errors ${r1.errors})`,
    );

    const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' }); // as the service does
    const after = await verifyTenantChain(store, 'bench-one');
    console.log(`chain after the one-tenant load: valid=${after.valid}, ${fmt(after.totalEvents)} events`);

    for (const count of [10_000, 100_000]) {
      const tenant = `bench-verify-${count}`;
      const seedSeconds = await seed(db, tenant, count);
      // What autovacuum does after a bulk load: without statistics the planner takes the fresh
      // rows for a handful and sorts instead of walking the (tenant_id, seq) index.
      await db.sql.exec('VACUUM ANALYZE ledger_events');
      const t0 = performance.now();
      const result = await verifyTenantChain(store, tenant);
      const secs = (performance.now() - t0) / 1000;
      const h0 = performance.now();
      const http = (await (await fetch(`${url}/verify?tenant_id=${tenant}`)).json()) as { valid: boolean };
      const httpSecs = (performance.now() - h0) / 1000;
      console.log(
        `verify ${fmt(count)} events: ${fmt(secs, 3)} s = ${fmt(count / secs)} events/s (valid=${result.valid}; via GET /verify ${fmt(httpSecs, 3)} s, valid=${http.valid}; seeded at ${fmt(count / seedSeconds)} events/s)`,
      );
    }
    const q = await queryP95(url, 'bench-verify-100000', 500);
    console.log(
      `GET /events, one tenant with 100,000 events (mixed filters/offsets, 500 sequential requests): p50 ${fmt(q.p50, 2)} ms, p95 ${fmt(q.p95, 2)} ms, p99 ${fmt(q.p99, 2)} ms`,
    );
  } finally {
    await built.app.close();
    await built.stop?.();
    await bus.close();
    await db.close();
  }
}

export async function run(args: string[]): Promise<void> {
  // `npm run bench -- ledger proofs [entries]`: issue 27's proof figures (bench/ledger-proofs.support.ts).
  if (args[0] === 'proofs') return runProofBench(args.slice(1));
  const seconds = Number(args[0] ?? 10) || 10;
  console.log(`# ledger benchmark: ${os.cpus().length} CPUs, ${seconds}s per load phase, node ${process.version}`);
  await benchOn('PGlite (in memory)', { pgliteDir: 'memory://', poolSize: 1 }, seconds);
  const base = process.env.DATABASE_URL;
  if (!base) {
    console.log('\n(DATABASE_URL not set: PostgreSQL skipped)');
    return;
  }
  const name = `bench_ledger_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  try {
    const url = new URL(base);
    url.pathname = `/${name}`;
    await benchOn(`PostgreSQL (${url.host})`, { url: url.toString(), pgliteDir: '', poolSize: 10 }, seconds);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}
