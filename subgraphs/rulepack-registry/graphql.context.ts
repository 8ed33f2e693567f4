// Per-request GraphQL context: the caller (built by the kernel) and the registry's service.
import type { Caller } from '../../platform/auth/caller';
import type { RulePackService } from './rulepack.service';

export interface RulePackGraphQLContext {
  caller: Caller;
  service: RulePackService;
}

export function rulePackContext(caller: Caller, service: RulePackService): RulePackGraphQLContext {
  return { caller, service };
}
