// Per-request GraphQL context of the observability subgraph: the caller, the trace, alert and metric services
// (no entities, so no loaders).
import type { Caller } from '../../platform/auth/caller';
import type { AlertService } from './alert.service';
import type { MetricService } from './metric.service';
import type { TraceService } from './trace.service';

export interface ObservabilityGraphQLContext {
  caller: Caller;
  traces: TraceService;
  alerts: AlertService;
  metrics: MetricService;
}

export function observabilityContext(
  caller: Caller,
  traces: TraceService,
  alerts: AlertService,
  metrics: MetricService,
): ObservabilityGraphQLContext {
  return { caller, traces, alerts, metrics };
}
