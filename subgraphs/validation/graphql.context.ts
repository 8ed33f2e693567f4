// Per-request GraphQL context: the caller (built by the kernel), the bearer token to forward to
// the registries, and the service.
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../platform/auth/caller';
import { bearerToken } from '../../platform/auth/jwt';
import type { ValidationService } from './validation.service';
import type { Forwarding } from './validation.types';

export interface ValidationGraphQLContext {
  caller: Caller;
  forward: Forwarding;
  service: ValidationService;
}

export function validationContext(
  caller: Caller,
  request: FastifyRequest,
  service: ValidationService,
): ValidationGraphQLContext {
  return { caller, forward: { token: bearerToken(request.headers.authorization) }, service };
}
