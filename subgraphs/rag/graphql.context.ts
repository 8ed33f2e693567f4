// Per-request GraphQL context: the caller, the bearer token to forward to the AI broker and the
// OCR service, the services. The subscription's context is built in rag.subscriptions.ts.
import DataLoader from 'dataloader';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { RagModule } from './rag.module';
import type { IngestJob, RagDocument } from './rag.types';

export interface RagGraphQLContext extends RagModule {
  caller: Caller;
  forward: { token?: string };
  subscribeProgress?: (jobId: string) => Promise<AsyncIterable<IngestJob>>;
  maxUploadBytes?: number;
  /** Document references of one request, read in one tenant-scoped statement. */
  loaders: { documentById: DataLoader<string, RagDocument | null> };
}

/** The request's DataLoaders (HTTP and graphql-ws contexts alike). */
export function ragLoaders(rag: RagModule, caller: Caller): RagGraphQLContext['loaders'] {
  return { documentById: new DataLoader((ids) => rag.documents.getMany(caller, ids)) };
}

export function ragContext(caller: Caller, request: FastifyRequest, rag: RagModule): RagGraphQLContext {
  return {
    ...rag,
    caller,
    forward: { token: bearerToken(request.headers.authorization) },
    loaders: ragLoaders(rag, caller),
  };
}
