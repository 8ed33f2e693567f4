// Per-request GraphQL context: the caller (built by the kernel), the registry's service, and a
// DataLoader that batches the Schema references of one request into one scoped read per table.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import type { SchemaRegistryService } from './schema-registry.service';
import type { SchemaVersionView } from './schema-registry.types';

type SchemaRef = { name: string; version: string };

export interface SchemaRegistryGraphQLContext {
  caller: Caller;
  service: SchemaRegistryService;
  loaders: { schemaByRef: DataLoader<SchemaRef, SchemaVersionView | null, string> };
}

export function schemaRegistryContext(caller: Caller, service: SchemaRegistryService): SchemaRegistryGraphQLContext {
  const schemaByRef = new DataLoader<SchemaRef, SchemaVersionView | null, string>(
    (refs) => service.getMany(caller, refs),
    {
      cacheKeyFn: (r) => JSON.stringify([r.name, r.version]),
    },
  );
  return { caller, service, loaders: { schemaByRef } };
}
