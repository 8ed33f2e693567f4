// Wires the ledger's domain from its dependencies: the store, the group-committing appender and
// the tenant access rule. An operator's access to a tenant is appended to that tenant's own chain
// (the ledger is the audit sink, so it writes the record directly rather than via the outbox).
import type { Database } from '../../platform/db/database';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { GroupCommitter } from './ledger-append.service';
import { LedgerService, prepareAppend } from './ledger.service';
import { createLedgerStore } from './ledger.store';
import type { LedgerEvent } from './ledger.types';

export interface LedgerModule {
  service: LedgerService;
  committer: GroupCommitter;
}

export function createLedgerModule(db: Database, onCommitted: (events: LedgerEvent[]) => void): LedgerModule {
  const store = createLedgerStore(db.sql, { pageAsJson: db.kind === 'pglite' });
  // PGlite is one connection: a second transaction would only queue behind the first.
  const committer = new GroupCommitter(store, { maxInFlight: db.kind === 'pglite' ? 1 : 2, onCommitted });
  const access = new TenantAccess(async (a) => {
    await committer.append(prepareAppend({
      tenantId: a.tenantId, eventType: OPERATOR_ACCESS_EVENT, eventData: operatorAccessData(a), userId: a.operator, correlationId: a.correlationId,
    }));
  });
  return { service: new LedgerService(store, committer, access), committer };
}
