// Authentication as one hook on a whole route prefix, never repeated per handler. Each route may
// declare `config: { auth: 'public' | 'optional' | 'required' }`; the prefix's default applies
// otherwise. The hook runs onRequest, so an anonymous caller gets 401 before its body is even
// parsed. Permissions (roles, scopes, tenant) are the domain services' business.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { AuthContext } from '../auth/auth-context';
import { bearerToken } from '../auth/jwt';
import { AuthenticationError } from '../errors/domain-errors';
import { bodylessTextGuard } from './text-guard';

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

type Done = Parameters<onRequestHookHandler>[2];
type Then = (request: FastifyRequest, reply: FastifyReply, done: Done) => void;

/**
 * One request through a mode other than public. A callback, not a promise: a cached token is
 * accepted synchronously; only a token to verify waits. The header is read from the raw request:
 * Fastify's `request.headers` is an accessor, slow at a call site shared by every service (issue 35).
 * `then`, when given, is the route's next onRequest hook, run here once the caller is accepted
 * (where Fastify's hook runner would have run it next), never after a refusal.
 */
function authenticate(
  tokens: TokenAuthenticator,
  required: boolean,
  request: FastifyRequest,
  reply: FastifyReply,
  done: Done,
  then: Then | undefined,
): void {
  const header = request.raw.headers.authorization;
  const token = bearerToken(header);
  if (!token) {
    if (required || header !== undefined) return done(new AuthenticationError('Not authenticated'));
    return then ? then(request, reply, done) : done();
  }
  const hit = tokens.cached?.(token);
  if (hit) {
    request.auth = hit;
    return then ? then(request, reply, done) : done();
  }
  tokens.authenticate(token).then((auth) => {
    request.auth = auth;
    if (!then) return done();
    // As in Fastify's hook runner, a hook that throws answers with its error.
    try {
      then(request, reply, done);
    } catch (err) {
      done(err as Error);
    }
  }, done);
}

/** A hook for a prefix whose routes' modes are read per request (routes may declare `config.auth`). */
export function authenticationHook(tokens: TokenAuthenticator, defaultMode: AuthMode): onRequestHookHandler {
  return (request, reply, done) => {
    const mode = request.routeOptions.config?.auth ?? defaultMode;
    if (mode === 'public') return done();
    authenticate(tokens, mode === 'required', request, reply, done, undefined);
  };
}

/**
 * Authentication decided once per route, when it is registered in `routes` (or a plugin inside
 * it): a public route gets no hook at all, the others a hook of their own mode, first among the
 * route's own onRequest hooks (where the prefix-wide hook ran). Nothing is read per request to
 * find the mode: Fastify's `request.routeOptions` builds a fresh object on every read. A GET or
 * HEAD route with no onRequest hook of its own has only the kernel's text guard after it
 * (text-guard.ts): then one hook runs both, in the same order, since each hook Fastify runs costs
 * a hook runner step per request (issues 30 and 35).
 */
export function authenticateRoutes(routes: FastifyInstance, tokens: TokenAuthenticator, defaultMode: AuthMode): void {
  const hooks: Record<Exclude<AuthMode, 'public'>, onRequestHookHandler> = {
    optional: (request, reply, done) => authenticate(tokens, false, request, reply, done, undefined),
    required: (request, reply, done) => authenticate(tokens, true, request, reply, done, undefined),
  };
  const guarded: Record<Exclude<AuthMode, 'public'>, onRequestHookHandler> = {
    optional: (request, reply, done) => authenticate(tokens, false, request, reply, done, bodylessTextGuard),
    required: (request, reply, done) => authenticate(tokens, true, request, reply, done, bodylessTextGuard),
  };
  routes.addHook('onRoute', (route) => {
    const mode = route.config?.auth ?? defaultMode;
    if (mode === 'public') return;
    const own = route.onRequest;
    const list = own === undefined ? [] : Array.isArray(own) ? own : [own];
    route.onRequest = list.length === 1 && list[0] === bodylessTextGuard ? [guarded[mode]] : [hooks[mode], ...list];
  });
}

/** The verified caller of a route whose prefix requires authentication. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AuthenticationError('Not authenticated');
  return request.auth;
}
