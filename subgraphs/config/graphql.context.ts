// Per-request GraphQL context: the caller (built by the kernel) with its bearer token, which
// publishing forwards to the schema registry and promoting to the workflow service.
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import type { Caller } from '../../platform/auth/caller';
import type { ConfigModule } from './config.module';
import type { ChangeNotice, ConfigCaller } from './config.types';

export interface ConfigGraphQLContext {
  caller: ConfigCaller;
  config: ConfigModule;
  /** Set on graphql-ws connections only (config.subscriptions.ts). */
  subscribeChanges?: (
    afterSeq: number | undefined,
    tenantId: string | undefined,
  ) => Promise<AsyncIterableIterator<ChangeNotice>>;
}

export function configCaller(caller: Caller, authorization: string | undefined): ConfigCaller {
  return { ...caller, token: bearerToken(authorization) };
}

export function configContext(
  caller: Caller,
  request: FastifyRequest | undefined,
  config: ConfigModule,
): ConfigGraphQLContext {
  return { caller: configCaller(caller, request?.headers.authorization), config };
}
