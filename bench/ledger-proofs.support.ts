// Issue 27's benchmark, run by `npm run bench -- ledger proofs [entries]` (numbers only):
//   - append throughput with the Merkle tree kept and without it, interleaved in one run;
//   - inclusion- and consistency-proof generation p50/p99 on a tenant of `entries` entries
//     (1,000,000 by default), with checkpoints every tenth of the way;
//   - verification rate of the standalone verifier (verifier/verify-proof.cjs) on one core.
// PostgreSQL when DATABASE_URL is set (a throwaway database), else in-memory PGlite.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { TenantAccess } from '../platform/auth/tenant-access';
import { openDatabase, type Database } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import { PROJECT_ROOT } from '../platform/project-root';
import { consistencyJson, inclusionJson } from '../rest-compat/ledger/ledger-proofs.routes';
import { loadCheckpointSigner } from '../subgraphs/ledger/checkpoint.signer';
import { GroupCommitter } from '../subgraphs/ledger/ledger-append.service';
import { LedgerProofService } from '../subgraphs/ledger/ledger-proof.service';
import { createLedgerProofStore } from '../subgraphs/ledger/ledger-proof.store';
import { createLedgerStore } from '../subgraphs/ledger/ledger.store';

// The auditor's file itself, from the checkout (it is not compiled into dist/).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require(path.join(PROJECT_ROOT, 'verifier/verify-proof.cjs')) as {
  verify(doc: unknown, jwks: unknown): string;
};

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const BATCH = 5000;

async function appendN(committer: GroupCommitter, tenant: string, count: number): Promise<number> {
  const t0 = performance.now();
  for (let done = 0; done < count; done += BATCH) {
    const n = Math.min(BATCH, count - done);
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        committer.append({
          tenantId: tenant,
          eventType: 'rule_execution',
          userId: `user-${i % 50}`,
          correlationId: null,
          description: null,
          idempotencyKey: null,
          writtenBy: null,
          eventDataText: `{"result":"ok","rules_executed":${i % 100},"seq":${done + i}}`,
        }),
      ),
    );
  }
  return count / ((performance.now() - t0) / 1000);
}

function percentiles(times: number[]): { p50: number; p99: number } {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function benchOn(label: string, db: Database, entries: number): Promise<void> {
  console.log(`\n## ${label}`);
  const logger = createLogger('ERROR', 'ledger-bench');
  const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' });
  const inFlight = db.kind === 'pglite' ? 1 : 2;
  const withTree = new GroupCommitter(store, { maxBatch: BATCH, maxInFlight: inFlight });
  const withoutTree = new GroupCommitter(store, { maxBatch: BATCH, maxInFlight: inFlight, keepTree: false });

  // 1. Append throughput, tree kept vs not, interleaved so both see the same machine.
  const rounds = 4;
  const perRound = Math.max(BATCH, Math.min(50_000, Math.floor(entries / 10)));
  const rates = { tree: [] as number[], none: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    rates.none.push(await appendN(withoutTree, 'bench-no-tree', perRound));
    rates.tree.push(await appendN(withTree, 'bench-tree', perRound));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`append, ${rounds} interleaved rounds of ${fmt(perRound)} entries:`);
  console.log(
    `  without the tree: ${fmt(mean(rates.none))} entries/s (rounds ${rates.none.map((x) => fmt(x)).join(', ')})`,
  );
  console.log(
    `  with the tree:    ${fmt(mean(rates.tree))} entries/s (rounds ${rates.tree.map((x) => fmt(x)).join(', ')})`,
  );
  console.log(`  ratio: ${fmt(mean(rates.tree) / mean(rates.none), 3)}x (target >= 0.9x)`);

  // 2. A tenant of `entries` entries with a checkpoint every tenth.
  const proofStore = createLedgerProofStore(db.sql);
  const signer = await loadCheckpointSigner(proofStore, undefined, logger);
  const access = new TenantAccess(async () => {});
  const proofs = new LedgerProofService(
    store,
    proofStore,
    signer,
    access,
    async () => {},
    { every: 1e9, intervalMs: 0, onDemandPerMinute: 1e9 },
    logger,
  );
  const tenant = 'bench-proofs';
  const caller = {
    correlationId: 'bench',
    auth: { username: 'bench', tenantId: tenant, roles: ['user'], scopes: ['read'], isService: false },
  } as never;
  const t0 = performance.now();
  const sizes: number[] = [];
  for (let i = 1; i <= 10; i++) {
    await appendN(withTree, tenant, Math.floor(entries / 10));
    sizes.push((await proofs.checkpoint(tenant)).treeSize);
  }
  console.log(
    `seeded ${fmt(sizes.at(-1)!)} entries with the tree in ${fmt((performance.now() - t0) / 1000, 1)} s, checkpoints at ${sizes.map((s) => fmt(s)).join(', ')}`,
  );

  // 3. Proof generation latency (the service call: plan, one query, compute).
  const n = sizes.at(-1)!;
  const incl: number[] = [];
  const docs: unknown[] = [];
  for (let i = 0; i < 2000; i++) {
    const seq = 1 + Math.floor(Math.random() * n);
    const s = performance.now();
    const proof = await proofs.inclusion(caller, { seq });
    incl.push(performance.now() - s);
    if (docs.length < 1000) docs.push(inclusionJson(proof));
  }
  const ip = percentiles(incl);
  console.log(
    `inclusion proof (2,000 random entries, tree of ${fmt(n)}): p50 ${fmt(ip.p50, 2)} ms, p99 ${fmt(ip.p99, 2)} ms (target p99 <= 5 ms)`,
  );
  const cons: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const a = sizes[Math.floor(Math.random() * (sizes.length - 1))]!;
    const later = sizes.filter((s) => s > a);
    const b = later[Math.floor(Math.random() * later.length)]!;
    const s = performance.now();
    const proof = await proofs.consistency(caller, { first: a, second: b });
    cons.push(performance.now() - s);
    if (i < 200) docs.push(consistencyJson(proof));
  }
  const cp = percentiles(cons);
  console.log(
    `consistency proof (1,000 random checkpoint pairs): p50 ${fmt(cp.p50, 2)} ms, p99 ${fmt(cp.p99, 2)} ms (target p99 <= 5 ms)`,
  );

  // 4. The standalone verifier, in this process (one core): signature, entry hashes, path.
  const jwks = await proofs.jwks();
  const inclusionDocs = docs.slice(0, 1000);
  let verified = 0;
  // Per second of this process's CPU time as well as of the clock: on a shared machine the clock
  // counts the time other processes held the core, the CPU time only this verifier's work.
  const v0 = performance.now();
  const cpu0 = process.cpuUsage();
  while (performance.now() - v0 < 5000) {
    for (const d of inclusionDocs) verifier.verify(d, jwks);
    verified += inclusionDocs.length;
  }
  const wall = (performance.now() - v0) / 1000;
  const used = process.cpuUsage(cpu0);
  const cpu = (used.user + used.system) / 1e6;
  console.log(
    `standalone verifier: ${fmt(verified / cpu)} inclusion proofs per CPU-second on one core (target >= 50,000); ` +
      `${fmt(verified / wall)}/s by the clock (load average ${loadavg()[0]!.toFixed(1)})`,
  );
}

export async function runProofBench(args: string[]): Promise<void> {
  const entries = Number(args[0] ?? 1_000_000) || 1_000_000;
  console.log(`# ledger proofs benchmark: ${fmt(entries)} entries`);
  const base = process.env.DATABASE_URL;
  if (!base) {
    const db = await openDatabase({ pgliteDir: 'memory://', poolSize: 1 });
    try {
      await benchOn('PGlite (in memory; set DATABASE_URL for the PostgreSQL figures the issue asks for)', db, entries);
    } finally {
      await db.close();
    }
    return;
  }
  const name = `bench_proofs_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  try {
    const url = new URL(base);
    url.pathname = `/${name}`;
    const db = await openDatabase({ url: url.toString(), pgliteDir: '', poolSize: 10 });
    try {
      await benchOn(`PostgreSQL (${url.host})`, db, entries);
    } finally {
      await db.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}
