// Wires the observability domain: the span store and the tenant rule, whose operator-access
// records reach the touched tenant's ledger through the outbox.
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { createSpanStore } from './span.store';
import { TraceService } from './trace.service';

export function createObservabilityModule(db: Database): { traces: TraceService } {
  const outbox = sqlOutboxWriter(db.sql, 'observability');
  const access = new TenantAccess((a) =>
    outbox.append(
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  return { traces: new TraceService(createSpanStore(db.sql), access) };
}
