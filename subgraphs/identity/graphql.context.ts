// The per-request GraphQL context: the caller (built by the kernel for every subgraph) and
// DataLoaders that batch entity references into one scoped store call per type.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import type { IdentityServices } from './identity.module';
import type { TenantRecord, UserView } from './identity.types';

export interface IdentityGraphQLContext {
  caller: Caller;
  services: IdentityServices;
  loaders: {
    userById: DataLoader<string, UserView | null>;
    userByUsername: DataLoader<string, UserView | null>;
    tenantById: DataLoader<string, TenantRecord | null>;
  };
}

function byKey<V>(rows: V[], key: (v: V) => string, keys: readonly string[]): (V | null)[] {
  const map = new Map(rows.map((r) => [key(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

export function identityContext(services: IdentityServices, caller: Caller): IdentityGraphQLContext {
  return {
    caller,
    services,
    loaders: {
      userById: new DataLoader(async (ids) => byKey(await services.users.findByIds(caller, ids), (u) => u.id, ids)),
      userByUsername: new DataLoader(async (names) =>
        byKey(await services.users.findByUsernames(caller, names), (u) => u.username, names),
      ),
      tenantById: new DataLoader(async (ids) => byKey(await services.tenants.findByIds(caller, ids), (t) => t.id, ids)),
    },
  };
}
