// Per-request GraphQL context: the caller (built by the kernel) with its bearer token, which the
// dependency resolver forwards to the rule-pack and schema registries.
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import type { Caller } from '../../platform/auth/caller';
import type { PacksService } from './pack.service';
import type { PacksCaller } from './pack.types';

export interface PacksGraphQLContext {
  caller: PacksCaller;
  packs: PacksService;
}

export function packsCaller(caller: Caller, authorization: string | undefined): PacksCaller {
  return { ...caller, token: bearerToken(authorization) };
}

export function packsContext(caller: Caller, request: FastifyRequest, packs: PacksService): PacksGraphQLContext {
  return { caller: packsCaller(caller, request.headers.authorization), packs };
}
