// Authentication as a hook on a whole route prefix, not repeated per handler. `authenticate`
// verifies the bearer token (401 in the spec's shape on failure); `requireRole`/`requireScope`
// turn a missing permission into the spec's 403.
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { assertAdmin, assertScope, type AuthContext, type Scope } from '../auth/auth-context';
import { bearerToken } from '../auth/jwt';
import { AuthenticationError } from '../errors/domain-errors';

export interface TokenAuthenticator {
  authenticate(token: string): Promise<AuthContext>;
}

export function authenticate(tokens: TokenAuthenticator): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new AuthenticationError('Not authenticated');
    request.auth = await tokens.authenticate(token);
  };
}

/** Like `authenticate`, but an absent token leaves the request anonymous (REQUIRE_AUTH=false). */
export function authenticateOptional(tokens: TokenAuthenticator): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const token = bearerToken(request.headers.authorization);
    if (token) request.auth = await tokens.authenticate(token);
  };
}

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AuthenticationError('Not authenticated');
  return request.auth;
}

export const requireAdmin: preHandlerAsyncHookHandler = async (request: FastifyRequest, _reply: FastifyReply) => {
  assertAdmin(requireAuth(request));
};

export function requireScope(scope: Scope): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest) => {
    assertScope(requireAuth(request), scope);
  };
}
