// Wires the ledger's domain from its dependencies: the store, the group-committing appender and
// the tenant access rule. An operator's access to a tenant is appended to that tenant's own chain
// (the ledger is the audit sink, so it writes the record directly rather than via the outbox).
// The proofs part (checkpoints signed with the process's key) needs the database to load its
// key, so it is wired in a second, async step.
import type { Database } from '../../platform/db/database';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Logger } from '../../platform/logging/logger';
import { loadCheckpointSigner } from './checkpoint.signer';
import type { CheckpointConfig } from './ledger.config';
import { GroupCommitter } from './ledger-append.service';
import { createLedgerProofStore } from './ledger-proof.store';
import { CHECKPOINT_EVENT, LedgerProofService, PLATFORM_CHAIN } from './ledger-proof.service';
import { LedgerService, prepareAppend } from './ledger.service';
import { createLedgerStore, type LedgerStore } from './ledger.store';
import type { LedgerEvent } from './ledger.types';

export interface LedgerModule {
  service: LedgerService;
  committer: GroupCommitter;
  store: LedgerStore;
  access: TenantAccess;
  /** Set by createLedgerProofs: told of every commit so checkpoints follow the chains. */
  proofs?: LedgerProofService;
}

export function createLedgerModule(db: Database, onCommitted: (events: LedgerEvent[]) => void): LedgerModule {
  const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' });
  const wired: Partial<LedgerModule> = { store };
  // One batch in flight, on PostgreSQL too (issue 35): the appends arriving meanwhile form the
  // next batch, so each commit's WAL flush carries about twice as many appends as with two
  // batches in flight (22 against 13 per transaction under the 50-tenant load), with fewer
  // statements and flushes per append; a second batch mostly waited on the first one's head
  // locks. (PGlite is one connection anyway.) docs/benchmarks.md, "Ledger appends: one batch in flight".
  const committer = new GroupCommitter(store, {
    maxInFlight: 1,
    onCommitted: (events) => {
      onCommitted(events);
      const proofs = wired.proofs;
      if (!proofs) return;
      const sizes = new Map<string, number>();
      for (const e of events) sizes.set(e.tenantId, Math.max(sizes.get(e.tenantId) ?? 0, e.seq));
      for (const [tenantId, size] of sizes) proofs.noteAppended(tenantId, size);
    },
  });
  const access = new TenantAccess(async (a) => {
    await committer.append(
      prepareAppend({
        tenantId: a.tenantId,
        eventType: OPERATOR_ACCESS_EVENT,
        eventData: operatorAccessData(a),
        userId: a.operator,
        correlationId: a.correlationId,
      }),
    );
  });
  Object.assign(wired, { service: new LedgerService(store, committer, access), committer, access });
  return wired as LedgerModule;
}

/** Loads the signing key, then wires checkpoints and proofs into the module. */
export async function createLedgerProofs(
  db: Database,
  module: LedgerModule,
  config: CheckpointConfig,
  logger: Logger,
): Promise<LedgerProofService> {
  const proofStore = createLedgerProofStore(db.sql);
  const signer = await loadCheckpointSigner(proofStore, config.privateKeyPem, logger);
  const proofs = new LedgerProofService(
    module.store,
    proofStore,
    signer,
    module.access,
    async (data) => {
      await module.committer.append(
        prepareAppend({ tenantId: PLATFORM_CHAIN, eventType: CHECKPOINT_EVENT, eventData: data, userId: null }),
      );
    },
    config,
    logger,
  );
  module.proofs = proofs;
  return proofs;
}
