// Per-request GraphQL context of the observability subgraph: the caller and the trace service
// (no entities, so no loaders).
import type { Caller } from '../../platform/auth/caller';
import type { TraceService } from './trace.service';

export interface ObservabilityGraphQLContext {
  caller: Caller;
  traces: TraceService;
}

export function observabilityContext(caller: Caller, traces: TraceService): ObservabilityGraphQLContext {
  return { caller, traces };
}
