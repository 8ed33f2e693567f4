// Per-request GraphQL context: the caller (with its token, for the packs registry), the domain
// service, and a DataLoader batching DataflowRun references into one tenant-scoped read.
import DataLoader from 'dataloader';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { RunRecord } from './dataflow.types';
import type { DataflowCaller, DataflowService } from './run.service';

export interface DataflowGraphQLContext {
  caller: DataflowCaller;
  service: DataflowService;
  loaders: { runById: DataLoader<string, RunRecord | null> };
  /** Over graphql-ws only (run.subscriptions.ts). */
  subscribeProgress?: (runId: string) => Promise<AsyncIterableIterator<RunRecord>>;
}

export function dataflowContext(
  caller: Caller,
  request: Pick<FastifyRequest, 'headers'>,
  service: DataflowService,
): DataflowGraphQLContext {
  const withToken: DataflowCaller = { ...caller, token: bearerToken(request.headers.authorization) };
  return {
    caller: withToken,
    service,
    loaders: { runById: new DataLoader((ids) => service.runsByIds(withToken, ids)) },
  };
}
