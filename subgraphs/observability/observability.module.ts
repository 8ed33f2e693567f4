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
import { recordPlatformMetrics } from './metric.recorder';
import { MetricService, type SeriesBudget } from './metric.service';
import { storedSource } from './metric.source';
import { createMetricStore } from './metric.store';
import { createSpanStore } from './span.store';
import { TraceService } from './trace.service';

export interface ObservabilityModule {
  traces: TraceService;
  alerts: AlertService;
  evaluator: AlertEvaluator;
  metrics: MetricService;
  /** Stores the platform's own key metrics once (the service calls it every OBSERVABILITY_RECORD_MS). */
  record(now: number): Promise<{ stored: number; rejected: number }>;
}

export function createObservabilityModule(
  db: Database,
  options: {
    scrapeTargets?: readonly string[];
    source?: MetricSource;
    clock?: () => number;
    seriesPerTenant?: number;
  } = {},
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
  const live =
    options.source ??
    (targets.length > 0 ? combinedSource([inProcessSource(), scrapeSource(targets)]) : inProcessSource());
  const metricStore = createMetricStore(db.sql);
  const perTenant = options.seriesPerTenant ?? 10_000;
  const budget: SeriesBudget = { perTenant, platform: perTenant * 10 };
  return {
    traces: new TraceService(createSpanStore(db.sql), access, options.clock),
    alerts: new AlertService(alertStore, access, options.clock),
    // Stored series first: a series also live in this process is then read at its live value.
    evaluator: new AlertEvaluator(alertStore, combinedSource([storedSource(metricStore, options.clock), live])),
    metrics: new MetricService(metricStore, access, budget, options.clock),
    record: (now) => recordPlatformMetrics(live, metricStore, budget, now),
  };
}
