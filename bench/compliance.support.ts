// The compliance benchmark's in-process ledger: the ledger's own group committer and proof
// service over the bench database, behind the two ports the compliance domain calls over HTTP
// in production (EvidenceLedger, ReportLedger). Real appends, real checkpoints, real proofs. The
// intake's appends skip the HTTP hop (the numbers are the domain's and the database's); a report's
// whole proof export goes over HTTP exactly as in `npm start`: the ledger's REST routes on the
// service app stack (kernel body guard, error handler, token hook) on a local port, called by the
// compliance service's own ReportLedger client (createReportLedger) with its service identity.
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { TenantAccess } from '../platform/auth/tenant-access';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { authenticationHook } from '../platform/http/auth-hooks';
import { createServiceApp } from '../platform/http/service-app';
import type { Database } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import { checkpointJson, inclusionBatchJson, inclusionJson } from '../rest-compat/ledger/ledger-proofs.routes';
import type { EvidenceLedger } from '../subgraphs/compliance/evidence-ledger';
import { evidenceIdempotencyKey } from '../subgraphs/compliance/evidence-ledger';
import { registerInclusionStreamRoute } from '../rest-compat/ledger/ledger-proof-stream.route';
import { registerLedgerProofRoutes } from '../rest-compat/ledger/ledger-proofs.routes';
import {
  createReportLedger,
  reportIdempotencyKey,
  REPORT_LEDGER_EVENT,
  type ReportLedger,
} from '../subgraphs/compliance/report-ledger';
import { loadCheckpointSigner } from '../subgraphs/ledger/checkpoint.signer';
import { GroupCommitter } from '../subgraphs/ledger/ledger-append.service';
import { LedgerProofService } from '../subgraphs/ledger/ledger-proof.service';
import { createLedgerProofStore } from '../subgraphs/ledger/ledger-proof.store';
import { createLedgerStore } from '../subgraphs/ledger/ledger.store';
import canonicalize from 'canonicalize';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

export interface InProcessLedger {
  evidence: EvidenceLedger;
  reports: ReportLedger;
  drain(): Promise<void>;
  /** Appends `count` compliance_evidence entries for these items (the bench's seeding), answering their entry ids in order. */
  seedEntries(tenantId: string, items: { itemId: string; contentSha256: string }[]): Promise<string[]>;
  jwks(): Promise<unknown>;
  /** Stops the ledger's HTTP door. */
  close(): Promise<void>;
}

const caller = (tenantId: string) =>
  ({
    correlationId: 'bench',
    auth: { username: 'bench', tenantId, roles: ['user'], scopes: ['read', 'write'], isService: false },
  }) as never;

/** `exportInProcess`: the whole export calls the proof service directly (no HTTP hop), for comparison. */
export async function inProcessLedger(db: Database, exportInProcess = false): Promise<InProcessLedger> {
  const logger = createLogger('ERROR', 'compliance-bench-ledger');
  const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' });
  const committer = new GroupCommitter(store, { maxBatch: 5000, maxInFlight: db.kind === 'pglite' ? 1 : 2 });
  const proofStore = createLedgerProofStore(db.sql);
  const signer = await loadCheckpointSigner(proofStore, undefined, logger);
  const proofs = new LedgerProofService(
    store,
    proofStore,
    signer,
    new TenantAccess(async () => {}),
    async () => {},
    { every: 1e9, intervalMs: 0, onDemandPerMinute: 1e9 },
    logger,
  );
  // The ledger's proof routes over HTTP, on the app stack every service uses.
  const secret = randomBytes(48).toString('base64url');
  const config = loadPlatformConfig({ ...process.env, JWT_SECRET_KEY: secret, LOG_LEVEL: 'ERROR' });
  const app = await createServiceApp({
    name: 'ledger',
    title: 'ledger (compliance bench)',
    version: 'bench',
    config,
    health: { readiness: {} },
  });
  await app.register(
    async (routes) => {
      routes.addHook('onRequest', authenticationHook(new AccessTokens(secret, 3600), 'required'));
      registerLedgerProofRoutes(routes, proofs);
      registerInclusionStreamRoute(routes, proofs);
    },
    { prefix: '' },
  );
  const ledgerUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const overHttp = createReportLedger(ledgerUrl, new ServiceIdentity(secret, 'compliance'));
  const append = async (tenantId: string, eventType: string, data: unknown, key: string, userId: string | null) => {
    const { event } = await committer.append({
      tenantId,
      eventType,
      eventDataText: canonicalize(data) ?? '{}',
      userId,
      correlationId: null,
      description: null,
      idempotencyKey: key,
      writtenBy: 'compliance-service',
    });
    return { entryId: event.id, chainHash: event.chainHash };
  };
  return {
    evidence: {
      record: (tenantId, e) =>
        append(
          tenantId,
          'compliance_evidence',
          {
            item_id: e.itemId,
            revision: e.revision,
            content_sha256: e.contentSha256,
            source: e.source,
            event_id: e.eventId,
            controls: e.controls.map((c) => ({ framework: c.framework, control_id: c.controlId })),
          },
          evidenceIdempotencyKey(e.itemId, e.revision),
          e.recordedBy,
        ),
      inclusionProof: async (tenantId, entryId) =>
        inclusionJson(await proofs.inclusion(caller(tenantId), { entryId })) as never,
    },
    reports: {
      checkpoint: async (tenantId) => checkpointJson(await proofs.checkpoint(tenantId)),
      inclusionProofs: async (tenantId, entryIds, treeSize) =>
        inclusionBatchJson(await proofs.inclusionBatch(caller(tenantId), { entryIds, treeSize })) as never,
      // The whole export: over HTTP, the production path (or in process, `--export-in-process`).
      inclusionProofStream: exportInProcess
        ? async function* (tenantId, entryIds, treeSize) {
            const { batches } = await proofs.inclusionStream(caller(tenantId), { entryIds, treeSize });
            for await (const b of batches) yield inclusionBatchJson(b) as never;
          }
        : overHttp.inclusionProofStream,
      record: (tenantId, e) =>
        append(
          tenantId,
          REPORT_LEDGER_EVENT,
          { report_id: e.reportId, report_type: e.reportType, period: e.period, result: e.result },
          reportIdempotencyKey(e.reportId),
          e.signedOffBy,
        ),
    },
    drain: () => committer.drain(),
    async seedEntries(tenantId, items) {
      const done = await Promise.all(
        items.map((e) =>
          append(
            tenantId,
            'compliance_evidence',
            { item_id: e.itemId, revision: 1, content_sha256: e.contentSha256, source: 'bench' },
            evidenceIdempotencyKey(e.itemId, 1),
            null,
          ),
        ),
      );
      return done.map((d) => d.entryId);
    },
    jwks: () => proofs.jwks(),
    close: () => app.close(),
  };
}

/**
 * CPU seconds used so far by the PostgreSQL backends serving this database (Linux /proc, local
 * server only; null elsewhere). Sampled before and after a phase, it gives the database's CPU per
 * event, which, beside this process's own, says what the intake costs whatever else the machine
 * is running. Backends that ended in between are missed (a pool keeps its connections while busy).
 */
export async function backendCpu(db: Database): Promise<Map<number, number> | null> {
  if (db.kind !== 'postgres' || process.platform !== 'linux') return null;
  const { rows } = await db.sql.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, (Number(f[11]) + Number(f[12])) / 100);
    } catch {
      return null; // not visible from here (a server in another container or host)
    }
  }
  return ticks;
}

/** Seconds of backend CPU between two `backendCpu` samples (a backend new since the first counts from zero). */
export function backendCpuBetween(
  before: Map<number, number> | null,
  after: Map<number, number> | null,
): number | null {
  if (!before || !after) return null;
  let s = 0;
  for (const [pid, t] of after) s += t - (before.get(pid) ?? 0);
  return s;
}
