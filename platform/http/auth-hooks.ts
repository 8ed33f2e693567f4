// Authentication as one hook on a whole route prefix, never repeated per handler. Each route may
// declare `config: { auth: 'public' | 'optional' | 'required' }`; the prefix's default applies
// otherwise. The hook runs onRequest, so an anonymous caller gets 401 before its body is even
// parsed. Permissions (roles, scopes, tenant) are the domain services' business.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { AuthContext } from '../auth/auth-context';
import { bearerToken } from '../auth/jwt';
import { AuthenticationError } from '../errors/domain-errors';

export interface TokenAuthenticator {
  authenticate(token: string): Promise<AuthContext>;
  /**
   * The context of a token this authenticator has already verified and still caches, without a
   * promise; undefined means "ask authenticate". Lets a request whose token is cached pass the
   * authentication hook synchronously (no promise, no microtask turn: issue 35's per-request cost).
   */
  cached?(token: string): AuthContext | undefined;
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

export function authenticationHook(tokens: TokenAuthenticator, defaultMode: AuthMode): onRequestHookHandler {
  // A callback hook: a cached token is accepted without a promise; only a token to verify waits.
  return (request, _reply, done) => {
    const mode = request.routeOptions.config?.auth ?? defaultMode;
    if (mode === 'public') return done();
    const header = request.headers.authorization;
    const token = bearerToken(header);
    if (!token) {
      if (mode === 'required' || header !== undefined) return done(new AuthenticationError('Not authenticated'));
      return done();
    }
    const hit = tokens.cached?.(token);
    if (hit) {
      request.auth = hit;
      return done();
    }
    tokens.authenticate(token).then((auth) => {
      request.auth = auth;
      done();
    }, done);
  };
}

/** The verified caller of a route whose prefix requires authentication. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AuthenticationError('Not authenticated');
  return request.auth;
}
