// Per-request GraphQL context: the caller, the bearer token to forward (retrieval, schema
// registry), and the services.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { AiBrokerService } from './ai-broker.service';
import type { Forwarding } from './ai-broker.types';
import type { AssistService } from './assist.service';

export interface AiBrokerGraphQLContext {
  caller: Caller;
  forward: Forwarding;
  broker: AiBrokerService;
  assist: AssistService;
}

export function aiBrokerContext(
  caller: Caller,
  request: FastifyRequest,
  broker: AiBrokerService,
  assist: AssistService,
): AiBrokerGraphQLContext {
  return { caller, forward: { token: bearerToken(request.headers.authorization) }, broker, assist };
}
