// The compliance benchmark (issue 28 item 4; numbers only, nothing passes or fails):
//   npm run bench -- compliance [--store pg|pglite] [--events 20000] [--concurrency 64]
//                               [--items 1000000] [--proofs 10000] [--unbatched] [--shared-entries]
//                               [--export-in-process]
// 1. intake: `--events` compliance events through `ingestComplianceEvent` (the domain function
//    the bus, REST and client doors call), `--concurrency` at a time, each mapped by a certified
//    mapping pack to three controls and appended to the ledger: events/s (target >= 2,000 on
//    PostgreSQL). Concurrent calls share batches (intake.batcher.ts: multi-row inserts, one
//    UPDATE for the ledger entries), so the concurrency is also the largest batch; the mean
//    batch is printed.
// 2. a quarterly report over `--items` evidence items (target: 1,000,000 in <= 60 s with its
//    proofs). The items beyond the intake's are written by SQL, each with its OWN ledger entry
//    appended through the ledger's group commit (the intake at 2,000/s would need eight minutes);
//    `--shared-entries` points them at the intake's entries instead (the ledger then proves each
//    shared entry once). Timed: generation (snapshot, verdicts, ONE checkpoint, digest), then
//    `--proofs` proofs through the report's page path (the batch route), then the whole export
//    (every item's proof from the checkpoint's tree built once), and generation + export.
// The ledger runs in process (bench/compliance.support.ts): real appends, checkpoints and proofs;
// the whole export goes over HTTP (the ledger's NDJSON stream route on a local port, called by
// the compliance service's own ReportLedger client), the path `npm start` takes
// (`--export-in-process`: the proof service called directly, to see the hop's cost). PostgreSQL when DATABASE_URL is set (a throwaway database), else PGlite.
import { WorkflowClient } from '../platform/clients/workflow.client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../platform/auth/caller';
import { COMPLIANCE_RULE_EXECUTION } from '../platform/contracts/compliance.events';
import { createLogger } from '../platform/logging/logger';
import { PROJECT_ROOT } from '../platform/project-root';
import { loadLegalMinimums } from '../platform/retention/retention.types';
import { SubjectVault } from '../platform/vault/subject-vault';
import { createComplianceModule } from '../subgraphs/compliance/compliance.module';
import { benchDatabase, fmt, loadNote } from './events.support';
import { backendCpu, backendCpuBetween, inProcessLedger } from './compliance.support';

const TENANT = 'bench-compliance';
// The auditor's file itself, from the checkout (it is not compiled into dist/).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const verifier = require(path.join(PROJECT_ROOT, 'verifier/verify-proof.cjs')) as {
  verify(doc: unknown, jwks: unknown): string;
};
const FIXTURES = path.join(PROJECT_ROOT, 'platform/contracts/oscal/fixtures');
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as unknown;
const person = (username: string, roles = ['user']): Caller => ({
  auth: { username, tenantId: TENANT, roles, scopes: ['read', 'write'], isService: false },
  correlationId: 'bench',
});

function parseArgs(args: string[]) {
  const value = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const int = (name: string, fallback: number) => {
    const v = value(name);
    const n = v === undefined ? fallback : Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
    return n;
  };
  const store = value('store') ?? (process.env.DATABASE_URL ? 'pg' : 'pglite');
  if (store !== 'pg' && store !== 'pglite') throw new Error('--store must be pg or pglite');
  return {
    store: store as 'pg' | 'pglite',
    events: int('events', 20_000),
    concurrency: int('concurrency', 64),
    items: int('items', 1_000_000),
    proofs: int('proofs', 10_000),
    unbatched: args.includes('--unbatched'),
    sharedEntries: args.includes('--shared-entries'),
    exportInProcess: args.includes('--export-in-process'),
  };
}

export async function run(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  console.log(`# compliance bench on ${args.store} (${loadNote()})`);
  const bench = await benchDatabase(args.store, args.store === 'pg' ? 16 : 1);
  const { db } = bench;
  const ledger = await inProcessLedger(db, args.exportInProcess);
  try {
    const m = createComplianceModule({
      db,
      config: {
        requireAuth: true,
        evidenceTtlDays: 90,
        expiringDays: 14,
        ledgerUrl: 'in-process',
        workflowUrl: 'unused',
        legalMinimums: loadLegalMinimums({}),
      },
      vault: new SubjectVault(randomBytes(32)),
      ledger: ledger.evidence,
      // Reports are not signed off here: no workflow service answers.
      workflow: new WorkflowClient('http://127.0.0.1:9'),
      reportLedger: ledger.reports,
      logger: createLogger('ERROR', 'compliance-bench'),
    });
    await m.packs.ensureSigningKey();
    await m.catalog.importCatalog(person('ann'), {
      framework: 'nist-800-53',
      document: fixture('nist-800-53-rev5-subset.catalog.json'),
    });
    await m.packs.submit(person('ann'), { pack: fixture('platform-events.mapping-pack.json') });
    await m.packs.certify(person('rex', ['reviewer']), { packId: 'platform-events-800-53', version: '1.0.0' });

    // 1. Intake. Batches counted (the batcher calls the instance's takeBatch). `--unbatched`: each
    // event alone (`ingestBatch([event])`: its own transaction, append and write-back), which is
    // the intake before batching, for a comparison under the same load.
    let batches = 0;
    const takeBatch = m.evidence.takeBatch.bind(m.evidence);
    m.evidence.takeBatch = (events) => {
      batches++;
      return takeBatch(events);
    };
    const ingest = args.unbatched
      ? async (e: Parameters<typeof m.evidence.ingestComplianceEvent>[0]) => (await m.evidence.ingestBatch([e]))[0]
      : (e: Parameters<typeof m.evidence.ingestComplianceEvent>[0]) => m.evidence.ingestComplianceEvent(e);
    const occurredAt = new Date(Date.UTC(2026, 7, 15));
    let next = 0;
    const cpu0 = process.cpuUsage();
    const pg0 = await backendCpu(db);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: args.concurrency }, async () => {
        while (next < args.events) {
          const i = next++;
          await ingest({
            id: `bench-${i}`,
            tenantId: TENANT,
            topic: COMPLIANCE_RULE_EXECUTION.topic,
            types: ['rule_execution', COMPLIANCE_RULE_EXECUTION.topic],
            rulePackId: 'kyc',
            occurredAt,
            data: { rulepack_id: 'kyc', result: i % 10 === 0 ? 'failed' : 'passed', n: i },
          });
        }
      }),
    );
    const intakeSeconds = (performance.now() - t0) / 1000;
    // This process's CPU (the domain, the in-process ledger, JSON, hashing, the pg driver) against
    // the wall time: the rest is PostgreSQL's share and waiting for a core.
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const pgSeconds = backendCpuBetween(pg0, await backendCpu(db));
    // What one event costs in CPU on both sides, and the rate that would allow if this machine's
    // cores did nothing else (a bound, not a measurement: it leaves out waiting on disk flushes).
    const perEvent = pgSeconds === null ? null : (cpuSeconds + pgSeconds) / args.events;
    const cores = os.availableParallelism();
    const { rows: recorded } = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM compliance_evidence_revisions WHERE tenant_id = $1 AND ledger_entry_id IS NOT NULL`,
      [TENANT],
    );
    console.log(
      `intake: ${fmt(args.events)} events in ${fmt(intakeSeconds, 2)} s = ${fmt(args.events / intakeSeconds)} events/s ` +
        `(${args.unbatched ? 'unbatched, ' : ''}${args.concurrency} at a time, ${fmt(batches)} batches of ${fmt(args.events / batches, 1)} on average; ` +
        `${fmt(Number(recorded[0]!.n))} revisions in the ledger; this process used ${fmt(cpuSeconds, 1)} s of CPU, ` +
        `${fmt((cpuSeconds / args.events) * 1000, 2)} ms an event` +
        (pgSeconds === null || perEvent === null
          ? ''
          : `; PostgreSQL's backends ${fmt(pgSeconds, 1)} s, ${fmt((pgSeconds / args.events) * 1000, 2)} ms an event; ` +
            `both: ${fmt(perEvent * 1000, 2)} ms an event, at most ${fmt(cores / perEvent)} events/s on ${cores} idle cores`) +
        `) (${loadNote()})`,
    );

    // 2. Seed the rest of the items by SQL, each pointing at a real ledger entry of the intake.
    const extra = Math.max(0, args.items - args.events);
    const s0 = performance.now();
    // Spread over every control of the catalog, so each has its share of the report.
    const controls = (await m.catalog.controls(person('ann'), 'nist-800-53')).map((c) => c.controlId);
    // Own entries (the default): each seeded item gets its own ledger entry, appended through the
    // ledger's group commit (real chain, real tree), so the report proves a million distinct
    // entries. `--shared-entries`: items point at the intake's entries (faster seeding; the
    // ledger proves each shared entry once).
    for (let done = 0; !args.sharedEntries && done < extra; done += 50_000) {
      const n = Math.min(50_000, extra - done);
      const ids = Array.from({ length: n }, () => randomUUID());
      const shas = ids.map((id) => createHash('sha256').update(id).digest('hex'));
      const entries = await ledger.seedEntries(
        TENANT,
        ids.map((itemId, k) => ({ itemId, contentSha256: shas[k]! })),
      );
      await db.sql.query(
        `WITH s AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) WITH ORDINALITY AS s(id, entry, sha, g)),
         i AS (INSERT INTO compliance_evidence_items (tenant_id, id, source, created_at)
               SELECT $4, id, 'bench', now() FROM s RETURNING id),
         c AS (INSERT INTO compliance_evidence_controls (tenant_id, item_id, framework, control_id)
               SELECT $4, s.id, 'nist-800-53', ($5::text[])[1 + (s.g + $6) % array_length($5::text[], 1)] FROM s RETURNING 1)
         INSERT INTO compliance_evidence_revisions (tenant_id, item_id, revision, content, content_sha256,
           collected_at, expires_at, recorded_by, ledger_entry_id)
         SELECT $4, s.id, 1, '{}'::jsonb, s.sha,
           timestamptz '2026-07-01' + (((s.g + $6) * 61) % 7000000) * interval '1 second',
           timestamptz '2026-07-01' + (((s.g + $6) * 61) % 7000000) * interval '1 second' + interval '90 days', 'bench', s.entry
         FROM s`,
        [ids, entries, shas, TENANT, controls, done],
      );
    }
    for (let done = 0; args.sharedEntries && done < extra; done += 100_000) {
      const n = Math.min(100_000, extra - done);
      // One statement a batch (autocommit): the intake's entries, numbered, are what items point at.
      await db.sql.query(
        `WITH e AS (SELECT row_number() OVER (ORDER BY item_id) AS k, ledger_entry_id, content_sha256
                    FROM compliance_evidence_revisions
                    WHERE tenant_id = $3 AND ledger_entry_id IS NOT NULL AND recorded_by IS NULL),
         ne AS (SELECT count(*) AS n FROM e),
         s AS (SELECT g, md5(g::text || $2)::uuid AS id FROM generate_series(1, $1::int) g),
         i AS (INSERT INTO compliance_evidence_items (tenant_id, id, source, created_at)
               SELECT $3, id, 'bench', now() FROM s RETURNING id),
         c AS (INSERT INTO compliance_evidence_controls (tenant_id, item_id, framework, control_id)
               SELECT $3, s.id, 'nist-800-53', ($4::text[])[1 + s.g % array_length($4::text[], 1)] FROM s RETURNING 1)
         INSERT INTO compliance_evidence_revisions (tenant_id, item_id, revision, content, content_sha256,
           collected_at, expires_at, recorded_by, ledger_entry_id)
         SELECT $3, s.id, 1, '{}'::jsonb, e.content_sha256,
           timestamptz '2026-07-01' + ((s.g * 61) % 7000000) * interval '1 second',
           timestamptz '2026-07-01' + ((s.g * 61) % 7000000) * interval '1 second' + interval '90 days', 'bench', e.ledger_entry_id
         FROM s JOIN e ON e.k = 1 + s.g % (SELECT n FROM ne)`,
        [n, `${done}-${randomUUID()}`, TENANT, controls],
      );
    }
    await db.sql.exec('ANALYZE');
    console.log(
      `seeded ${fmt(extra)} more items${args.sharedEntries ? " (sharing the intake's ledger entries)" : ', each with its own ledger entry,'} by SQL in ${fmt((performance.now() - s0) / 1000, 1)} s (${fmt(args.items)} in all)`,
    );

    // 3. The quarterly report over all of them.
    await ledger.drain();
    const g0 = performance.now();
    const report = await m.reports.generate(person('ann'), { framework: 'nist-800-53', period: '2026-Q3' });
    const generateSeconds = (performance.now() - g0) / 1000;
    console.log(
      `report 2026-Q3: generated in ${fmt(generateSeconds, 2)} s: ${fmt(report.summary.evidence_items)} items, ` +
        `${fmt(report.summary.evidence_links)} control links, ${report.summary.satisfied}/${report.summary.controls} satisfied, ` +
        `checkpoint tree size ${fmt(report.checkpoint?.tree_size ?? 0)} (${loadNote()})`,
    );

    // 4. Proofs against the report's checkpoint, through the report's own path (8 at a time).
    const page = await m.reports.evidencePage(person('ann'), report.id, { first: 1000 });
    const sample = [];
    let after = page.nextCursor;
    sample.push(...page.items);
    while (sample.length < args.proofs && after) {
      const more = await m.reports.evidencePage(person('ann'), report.id, { first: 1000, after });
      sample.push(...more.items);
      after = more.nextCursor;
    }
    const p0 = performance.now();
    const proofs = await m.reports.proofs(report, sample.slice(0, args.proofs));
    const proofSeconds = (performance.now() - p0) / 1000;
    const failed = [...proofs.values()].filter((p) => 'error' in p).length;
    // The seeded items share the intake's ledger entries, and the ledger proves each entry once
    // however many items name it: the rate is counted in distinct entries, what a real report
    // (one entry per item) would ask for.
    const entries = new Set(sample.slice(0, args.proofs).map((i) => i.ledgerEntryId)).size;
    const rate = entries / proofSeconds;
    console.log(
      `proofs: ${fmt(proofs.size)} distinct items (${fmt(entries)} distinct ledger entries) in ${fmt(proofSeconds, 2)} s = ` +
        `${fmt(rate)} entry proofs/s (${failed} failed); ` +
        `all ${fmt(report.summary.evidence_links)} would take ${fmt(report.summary.evidence_links / rate, 0)} s at that rate ` +
        `(${loadNote()})`,
    );
    // 5. The whole export: every item's proof against the report's checkpoint, the ledger's tree of
    // that checkpoint built once, streamed over HTTP (POST /v1/ledger/proofs/inclusion/stream). One proof of each batch checked by the standalone verifier.
    const jwks = await ledger.jwks();
    const x0 = performance.now();
    let exported = 0;
    let exportFailed = 0;
    let checked = 0;
    for await (const batch of m.reports.proofExport(person('ann'), report.id)) {
      exported += batch.length;
      for (const r of batch) if ('error' in r.result) exportFailed++;
      const first = batch.find((r) => 'proof' in r.result);
      if (first && 'proof' in first.result) {
        verifier.verify(first.result.proof, jwks); // throws on a proof that does not verify
        checked++;
      }
    }
    const exportSeconds = (performance.now() - x0) / 1000;
    console.log(
      `every proof (${args.exportInProcess ? 'in process' : 'over HTTP'}): ${fmt(exported)} items proved in ${fmt(exportSeconds, 2)} s = ${fmt(exported / exportSeconds)} proofs/s ` +
        `(${exportFailed} without a proof; ${checked} sampled proofs verified by verifier/verify-proof.cjs); ` +
        `report with its proofs: ${fmt(generateSeconds + exportSeconds, 1)} s end to end (target <= 60 s) (${loadNote()})`,
    );

    const oscal0 = performance.now();
    await m.reports.oscal(person('ann'), report.id);
    console.log(
      `OSCAL export (200 evidence per control, schema-validated): ${fmt((performance.now() - oscal0) / 1000, 2)} s`,
    );
  } finally {
    await ledger.close();
    await bench.drop();
  }
}
