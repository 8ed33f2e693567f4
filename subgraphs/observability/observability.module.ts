// Wires the observability domain: the span store, alert rules and silences, the evaluator, and
// the tenant rule, whose operator-access records reach the touched tenant's ledger through the outbox.
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { Database } from '../../platform/db/database';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import {
  combinedSource,
  inProcessSource,
  scrapeSource,
  type MetricSource,
} from '../../platform/telemetry/metric-source';
import { AlertEvaluator } from './alert.evaluator';
import { AlertService } from './alert.service';
import { createAlertStore } from './alert.store';
import { createSpanStore } from './span.store';
import { TraceService } from './trace.service';

export interface ObservabilityModule {
  traces: TraceService;
  alerts: AlertService;
  evaluator: AlertEvaluator;
}

export function createObservabilityModule(
  db: Database,
  options: { scrapeTargets?: readonly string[]; source?: MetricSource; clock?: () => number } = {},
): ObservabilityModule {
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
  const alertStore = createAlertStore(db.sql);
  const targets = options.scrapeTargets ?? [];
  const source =
    options.source ??
    (targets.length > 0 ? combinedSource([inProcessSource(), scrapeSource(targets)]) : inProcessSource());
  return {
    traces: new TraceService(createSpanStore(db.sql), access, options.clock),
    alerts: new AlertService(alertStore, access, options.clock),
    evaluator: new AlertEvaluator(alertStore, source),
  };
}
