// The console's session routes, the only code that sees a refresh token: POST /console/session
// signs in with identity's password grant, POST /console/session/refresh rotates the token, and
// DELETE /console/session revokes it at identity. A sign-in that owes a second factor answers 401
// with identity's challenge (`error`, `mfaToken`, `factors`); POST /console/session/mfa answers it
// with a code, POST /console/session/webauthn with a passkey's assertion. The refresh token lives only in the httpOnly
// cookie (session.cookie.ts); the page gets the access token, which it keeps in memory.
// Cross-site requests are refused twice over: the cookie is SameSite=Strict, and a request whose
// Origin is not this host is a 403 before identity is called.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { MfaChallengeRequired, type IdentityClient, type TokenPair } from '../../platform/clients/identity.client';
import { AuthenticationError, ForbiddenError } from '../../platform/errors/domain-errors';
import type { RateLimiter } from '../edge/rate-limit/rate-limiter';
import { limitClientIp } from '../http/client-ip.limit';
import { CONSOLE_HEADERS } from './console.csp';
import { clearedSessionCookie, refreshTokenOf, SESSION_PATH, sessionCookie } from './session.cookie';

const SignIn = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
    tenantId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const MfaAnswer = Type.Object(
  {
    mfaToken: Type.String({ minLength: 1, maxLength: 512 }),
    code: Type.String({ minLength: 1, maxLength: 64 }),
    method: Type.Optional(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code')])),
  },
  { additionalProperties: false },
);

const WebauthnAnswer = Type.Object(
  {
    mfaToken: Type.String({ minLength: 1, maxLength: 512 }),
    // Checked by identity's schema and by the ceremony; the router only relays it.
    credential: Type.Object({}, { additionalProperties: true, maxProperties: 10 }),
  },
  { additionalProperties: false },
);

const Session = Type.Object({ accessToken: Type.String(), expiresIn: Type.Integer() });
const Detail = Type.Object({ detail: Type.Unknown() });
const Challenge = Type.Object({
  detail: Type.Unknown(),
  error: Type.Optional(Type.String()),
  mfaToken: Type.Optional(Type.String()),
  factors: Type.Optional(Type.Array(Type.String())),
  expiresIn: Type.Optional(Type.Integer()),
});

export interface SessionRouteOptions {
  identity: Pick<IdentityClient, 'passwordGrant' | 'verifyMfa' | 'verifyWebauthn' | 'refresh' | 'revoke'>;
  refreshTokenDays: number;
  ipLimiter?: RateLimiter;
}

/** Same-origin check: a browser names the page's origin on every POST and DELETE. */
function sameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new ForbiddenError('Cross-origin session requests are refused');
  }
  if (host !== request.headers.host) throw new ForbiddenError('Cross-origin session requests are refused');
}

export function registerSessionRoutes(app: FastifyInstance, options: SessionRouteOptions): void {
  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const answer = (request: FastifyRequest, reply: FastifyReply, pair: TokenPair) =>
    reply
      .headers({ ...CONSOLE_HEADERS, 'cache-control': 'no-store' })
      .header(
        'set-cookie',
        sessionCookie(pair.refresh_token, {
          secure: secure(request),
          maxAgeSeconds: options.refreshTokenDays * 86_400,
        }),
      )
      .send({ accessToken: pair.access_token, expiresIn: pair.expires_in });
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    sameOrigin(request);
    return limitClientIp(options.ipLimiter, request, reply);
  };
  const schema = (body?: unknown) => ({
    hide: true,
    ...(body ? { body } : {}),
    response: { 200: Session, 401: Challenge, 403: Detail, 422: Detail, 429: Detail },
  });

  app.post<{ Body: Static<typeof SignIn> }>(SESSION_PATH, { schema: schema(SignIn) }, async (request, reply) => {
    if (!(await guard(request, reply))) return reply;
    const { username, password, tenantId } = request.body;
    try {
      return answer(request, reply, await options.identity.passwordGrant({ username, password, tenantId }));
    } catch (err) {
      if (!(err instanceof MfaChallengeRequired)) throw err;
      return reply
        .code(401)
        .headers({ ...CONSOLE_HEADERS, 'cache-control': 'no-store' })
        .header('WWW-Authenticate', 'Bearer')
        .send({ detail: err.message, ...err.challenge });
    }
  });

  app.post<{ Body: Static<typeof MfaAnswer> }>(
    `${SESSION_PATH}/mfa`,
    { schema: schema(MfaAnswer) },
    async (request, reply) => {
      if (!(await guard(request, reply))) return reply;
      return answer(request, reply, await options.identity.verifyMfa(request.body));
    },
  );

  app.post<{ Body: Static<typeof WebauthnAnswer> }>(
    `${SESSION_PATH}/webauthn`,
    { schema: schema(WebauthnAnswer) },
    async (request, reply) => {
      if (!(await guard(request, reply))) return reply;
      return answer(request, reply, await options.identity.verifyWebauthn(request.body));
    },
  );

  app.post(`${SESSION_PATH}/refresh`, { schema: schema() }, async (request, reply) => {
    if (!(await guard(request, reply))) return reply;
    const token = refreshTokenOf(request.headers.cookie);
    if (!token) throw new AuthenticationError('No console session');
    try {
      return answer(request, reply, await options.identity.refresh(token));
    } catch (err) {
      // A token identity refuses is gone for good: drop the cookie so the page signs in afresh.
      if (err instanceof AuthenticationError) reply.header('set-cookie', clearedSessionCookie(secure(request)));
      throw err;
    }
  });

  app.delete(SESSION_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!(await guard(request, reply))) return reply;
    const token = refreshTokenOf(request.headers.cookie);
    if (token) await options.identity.revoke(token);
    return reply
      .code(204)
      .headers({ ...CONSOLE_HEADERS, 'cache-control': 'no-store' })
      .header('set-cookie', clearedSessionCookie(secure(request)))
      .send();
  });
}
