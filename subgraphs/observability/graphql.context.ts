// Per-request GraphQL context of the observability subgraph: the caller, the trace and alert services
// (no entities, so no loaders).
import type { Caller } from '../../platform/auth/caller';
import type { AlertService } from './alert.service';
import type { TraceService } from './trace.service';

export interface ObservabilityGraphQLContext {
  caller: Caller;
  traces: TraceService;
  alerts: AlertService;
}

export function observabilityContext(
  caller: Caller,
  traces: TraceService,
  alerts: AlertService,
): ObservabilityGraphQLContext {
  return { caller, traces, alerts };
}
