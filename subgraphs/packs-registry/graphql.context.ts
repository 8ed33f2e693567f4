// Per-request GraphQL context: the caller (built by the kernel) with its bearer token, which the
// dependency resolver forwards to the rule-pack and schema registries.
import DataLoader from 'dataloader';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import type { Caller } from '../../platform/auth/caller';
import type { PacksService } from './pack.service';
import type { PackEntry, PacksCaller } from './pack.types';

type PackRef = { packId: string; version: string };

export interface PacksRegistryGraphQLContext {
  caller: PacksCaller;
  packs: PacksService;
  /** PackEntry references of one request, read in one visibility-scoped statement. */
  loaders: { entryByRef: DataLoader<PackRef, PackEntry | null, string> };
}

export function packsCaller(caller: Caller, authorization: string | undefined): PacksCaller {
  return { ...caller, token: bearerToken(authorization) };
}

export function packsRegistryContext(
  caller: Caller,
  request: FastifyRequest,
  packs: PacksService,
): PacksRegistryGraphQLContext {
  const packsCallerOf = packsCaller(caller, request.headers.authorization);
  const entryByRef = new DataLoader<PackRef, PackEntry | null, string>((refs) => packs.getMany(packsCallerOf, refs), {
    cacheKeyFn: (r) => JSON.stringify([r.packId, r.version]),
  });
  return { caller: packsCallerOf, packs, loaders: { entryByRef } };
}
