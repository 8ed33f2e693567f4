// Per-request GraphQL context: the caller (built by the kernel), the registry's service, and a
// DataLoader that batches the RulePack references of one request into one scoped store read.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import type { RulePackService } from './rulepack-registry.service';
import type { PackRef, RulePackVersionRecord } from './rulepack-registry.types';

export interface RulePackRegistryGraphQLContext {
  caller: Caller;
  service: RulePackService;
  loaders: { versionByRef: DataLoader<PackRef, RulePackVersionRecord | null, string> };
}

export function rulePackRegistryContext(caller: Caller, service: RulePackService): RulePackRegistryGraphQLContext {
  const versionByRef = new DataLoader<PackRef, RulePackVersionRecord | null, string>(
    (refs) => service.getMany(caller, refs),
    {
      cacheKeyFn: (r) => JSON.stringify([r.packId, r.version]),
    },
  );
  return { caller, service, loaders: { versionByRef } };
}
