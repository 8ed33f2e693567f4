// Authentication routes: the spec's password grant, JSON login and verify, plus refresh-token
// rotation, logout/revoke and the client-credentials grant. Each handler is one call into
// AuthService.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../platform/auth/auth-context';
import { InputError } from '../../platform/errors/domain-errors';
import { callerOf } from '../../platform/http/caller';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import { MfaChallengeError, reasonOf } from '../../subgraphs/identity/mfa.challenge';
import { LoginUnauthorized } from './mfa.schemas';
import { DEFAULT_TENANT } from '../../platform/auth/tenant.rule';
import {
  ClientCredentialsBody,
  errors,
  LoginBody,
  PasswordForm,
  RefreshBody,
  RevokeResponse,
  ServiceTokenResponse,
  TokenResponse,
  VerifyResponse,
  type ClientCredentialsBodyT,
  type LoginBodyT,
  type PasswordFormT,
  type RefreshBodyT,
} from './identity.schemas';

const FORM = 'application/x-www-form-urlencoded';
/** What Fastify's serialiser answers with: a body already serialised is sent with the same type. */
const JSON_UTF8 = 'application/json; charset=utf-8';
const bearer = [{ bearerAuth: [] }];

/** GET /v1/auth/verify's answer for a verified caller. */
function verifyAnswer(who: AuthContext) {
  return {
    valid: true,
    username: who.username,
    tenant_id: who.tenantId,
    roles: who.roles,
    scopes: who.scopes,
    ...(who.amr !== undefined ? { amr: who.amr } : {}),
    ...(who.acr !== undefined ? { acr: who.acr } : {}),
  };
}

export function tokenOut(pair: { accessToken: string; tokenType: 'bearer'; expiresIn: number; refreshToken: string }) {
  return {
    access_token: pair.accessToken,
    token_type: pair.tokenType,
    expires_in: pair.expiresIn,
    refresh_token: pair.refreshToken,
  };
}

/**
 * A right password that owes a second factor: a 401 like any refused login (clients unaware of
 * MFA see `detail` only), with the challenge beside it (docs/identity.md, "Multi-factor sign-in").
 */
async function loginAnswer(reply: FastifyReply, login: () => Promise<Parameters<typeof tokenOut>[0]>) {
  try {
    return tokenOut(await login());
  } catch (err) {
    if (!(err instanceof MfaChallengeError)) throw err;
    const c = err.challenge;
    return reply
      .code(401)
      .header('WWW-Authenticate', 'Bearer')
      .send({
        detail: err.message,
        error: reasonOf(c.purpose),
        mfa_token: c.mfaToken,
        factors: c.factors,
        expires_in: c.expiresIn,
      });
  }
}

/** OAuth's token endpoint takes a form (RFC 6749 §4.3.2); a JSON body is as wrong as a missing one. */
async function requireForm(request: FastifyRequest): Promise<void> {
  if (
    !String(request.headers['content-type'] ?? '')
      .toLowerCase()
      .startsWith(FORM)
  ) {
    throw new InputError(
      ['username', 'password', 'grant_type'].map((f) => ({ loc: ['body', f], msg: 'Field required', type: 'missing' })),
    );
  }
}

/** The password grant and the JSON login take the same credentials; the tenant defaults to `default`. */
function credentialsOf(body: { username: string; password: string; tenant_id?: string }) {
  return { username: body.username, password: body.password, tenantId: body.tenant_id ?? DEFAULT_TENANT };
}

export function registerAuthRoutes(app: FastifyInstance, services: IdentityServices): void {
  const { auth } = services;
  /** GET /v1/auth/verify's serialised answers, by the (frozen, cached) context they answer for. */
  const verifyBodies = new WeakMap<AuthContext, string>();
  // A login refused before it could name an account (the kernel's input guard, a body that does
  // not parse or match the schema: a 422) is still a failed login: audit it once it is answered.
  const auditMalformed = (grant: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (reply.statusCode === 422)
      await auth
        .recordMalformedLogin(callerOf(request), grant)
        .catch((err) => request.log.error({ err }, 'auditing a malformed login failed'));
  };

  app.post<{ Body: PasswordFormT }>(
    '/v1/auth/token',
    {
      config: { auth: 'public' },
      onResponse: auditMalformed('password'),
      preValidation: requireForm,
      schema: {
        tags: ['auth'],
        summary: 'OAuth 2.0 password grant',
        description:
          'Form-encoded `username`, `password`, `grant_type=password` (optional `tenant_id`, default `default`). Wrong credentials of any kind give the same 401.',
        consumes: [FORM],
        body: PasswordForm,
        response: { 200: TokenResponse, ...errors, 401: LoginUnauthorized },
      },
    },
    async (request, reply) => loginAnswer(reply, () => auth.login(callerOf(request), credentialsOf(request.body))),
  );

  app.post<{ Body: LoginBodyT }>(
    '/v1/auth/login',
    {
      config: { auth: 'public' },
      onResponse: auditMalformed('password'),
      schema: {
        tags: ['auth'],
        summary: 'JSON login',
        description:
          'Returns an access token (JWT) and a refresh token. `tenant_id` defaults to `default`. When a second factor is owed the answer is a 401 with `error: mfa_required` (or `mfa_enrolment_required`) and an `mfa_token` for `POST /v1/auth/mfa/verify`.',
        body: LoginBody,
        response: { 200: TokenResponse, ...errors, 401: LoginUnauthorized },
      },
    },
    async (request, reply) => loginAnswer(reply, () => auth.login(callerOf(request), credentialsOf(request.body))),
  );

  app.post<{ Body: RefreshBodyT }>(
    '/v1/auth/refresh',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Rotate a refresh token',
        description:
          'Exchanges a refresh token for a new access token and a new refresh token. Each refresh token works once; presenting an already rotated one revokes its whole family (every token descended from the same login).',
        body: RefreshBody,
        response: { 200: TokenResponse, ...errors },
      },
    },
    async (request) => tokenOut(await auth.refresh(callerOf(request), request.body.refresh_token)),
  );

  const revoke = {
    config: { auth: 'public' as const },
    schema: {
      tags: ['auth'],
      summary: 'Log out: revoke a refresh token',
      description:
        'Revokes the refresh token and every token of its family. Unknown tokens are accepted too (RFC 7009), so the answer says nothing about validity. Access tokens stay valid until they expire.',
      body: RefreshBody,
      response: { 200: RevokeResponse, 422: errors[422] },
    },
  };
  const revokeHandler = async (request: FastifyRequest<{ Body: RefreshBodyT }>) => {
    await auth.revoke(callerOf(request), request.body.refresh_token);
    return { revoked: true };
  };
  app.post<{ Body: RefreshBodyT }>('/v1/auth/logout', revoke, revokeHandler);
  app.post<{ Body: RefreshBodyT }>('/v1/auth/revoke', revoke, revokeHandler);

  app.post<{ Body: ClientCredentialsBodyT }>(
    '/v1/auth/service-token',
    {
      config: { auth: 'public' },
      onResponse: auditMalformed('client_credentials'),
      schema: {
        tags: ['auth'],
        summary: 'Client-credentials grant for service accounts',
        description:
          "Form or JSON: `grant_type=client_credentials`, `client_id`, `client_secret`. The token carries the account's `service:` roles and scopes; no refresh token.",
        consumes: [FORM, 'application/json'],
        body: ClientCredentialsBody,
        response: { 200: ServiceTokenResponse, ...errors },
      },
    },
    async (request) => {
      const token = await auth.serviceToken(callerOf(request), {
        clientId: request.body.client_id,
        clientSecret: request.body.client_secret,
      });
      return {
        access_token: token.accessToken,
        token_type: token.tokenType,
        expires_in: token.expiresIn,
        scope: token.scopes.join(' '),
      };
    },
  );

  app.get(
    '/v1/auth/verify',
    {
      schema: {
        tags: ['auth'],
        summary: 'Verify an access token',
        description:
          'Checks signature, algorithm (HS256 only), issuer and expiry from the token alone; used by the gateway on every request.',
        security: bearer,
        response: { 200: VerifyResponse, 401: errors[401] },
      },
    },
    // Synchronous (no promise): the gateway calls this on every request it does not verify itself.
    // A cached token's context is one frozen object for as long as it is cached, so its answer is
    // serialised once (through the route's own response serialiser) and sent as it is afterwards:
    // the same bytes and content type, without building and serialising the object per request.
    (request, reply) => {
      const who = request.auth!;
      let body = verifyBodies.get(who);
      if (body === undefined) {
        body = reply.serialize(verifyAnswer(who)) as string;
        // Only a frozen context: another could change under its kept answer.
        if (Object.isFrozen(who)) verifyBodies.set(who, body);
      }
      reply.type(JSON_UTF8).send(body);
    },
  );
}
