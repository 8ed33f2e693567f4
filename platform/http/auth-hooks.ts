// Authentication as one hook on a whole route prefix, never repeated per handler. Each route may
// declare `config: { auth: 'public' | 'optional' | 'required' }`; the prefix's default applies
// otherwise. The hook runs onRequest, so an anonymous caller gets 401 before its body is even
// parsed. Permissions (roles, scopes, tenant) are the domain services' business.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AuthContext } from '../auth/auth-context';
import { bearerToken } from '../auth/jwt';
import { AuthenticationError } from '../errors/domain-errors';

export interface TokenAuthenticator {
  authenticate(token: string): Promise<AuthContext>;
  /** True when it verifies the OIDC provider's asymmetric tokens itself (else the platform adds it). */
  readonly verifiesAsymmetric?: boolean;
}

/**
 * public: no token looked at (login routes); optional: a presented token must verify, none leaves
 * the caller anonymous (REQUIRE_AUTH=false); required: a valid token or 401.
 */
export type AuthMode = 'public' | 'optional' | 'required';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
}

export function authenticationHook(tokens: TokenAuthenticator, defaultMode: AuthMode): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const mode = request.routeOptions.config?.auth ?? defaultMode;
    if (mode === 'public') return;
    const header = request.headers.authorization;
    const token = bearerToken(header);
    if (!token) {
      if (mode === 'required' || header !== undefined) throw new AuthenticationError('Not authenticated');
      return;
    }
    request.auth = await tokens.authenticate(token);
  };
}

/** The verified caller of a route whose prefix requires authentication. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AuthenticationError('Not authenticated');
  return request.auth;
}
