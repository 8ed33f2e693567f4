// Multi-factor routes: answering a sign-in challenge, TOTP enrolment (with an access token, or
// with an enrolment challenge before the first sign-in), the caller's factors and recovery codes,
// an admin's reset of a user's factors, and the tenant's MFA policy. Thin adapters over
// subgraphs/identity's MfaService, MfaSignInService and MfaPolicyService.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import type { FactorView } from '../../subgraphs/identity/mfa.service';
import type { TenantMfaPolicy } from '../../subgraphs/identity/mfa-policy.service';
import { tokenOut } from './auth.routes';
import { errors, TokenResponse, UserParams, type UserParamsT } from './identity.schemas';
import {
  FactorParams,
  FactorsResponse,
  MfaPolicyBody,
  MfaPolicyOut,
  MfaPolicyQuery,
  MfaResetResponse,
  MfaVerifyBody,
  RecoveryCodesResponse,
  TotpConfirmBody,
  TotpConfirmResponse,
  TotpEnrolBody,
  TotpEnrolResponse,
  type FactorParamsT,
  type MfaPolicyBodyT,
  type MfaPolicyQueryT,
  type MfaVerifyBodyT,
  type TotpConfirmBodyT,
  type TotpEnrolBodyT,
} from './mfa.schemas';

const security = [{ bearerAuth: [] }];
const detail = (description: string) => ({
  type: 'object',
  properties: { detail: { type: 'string' } },
  description,
});
const tooMany = { 429: detail('Too many failed attempts on this account (with `Retry-After`)') };
const notFound = { 404: detail('Not found (or not yours)') };
const conflict = { 409: detail('Conflict') };

function factorOut(f: FactorView) {
  return {
    id: f.id,
    kind: f.kind,
    label: f.label,
    confirmed: f.confirmed,
    created_at: f.createdAt.toISOString(),
    last_used_at: f.lastUsedAt?.toISOString() ?? null,
  };
}

export function policyOut(p: TenantMfaPolicy) {
  return {
    tenant_id: p.tenantId,
    required_roles: p.requiredRoles,
    source: p.source,
    updated_at: p.updatedAt?.toISOString() ?? null,
    updated_by: p.updatedBy,
  };
}

export function registerMfaRoutes(app: FastifyInstance, services: IdentityServices): void {
  const { mfa, mfaSignIn, mfaPolicy } = services;

  app.post<{ Body: MfaVerifyBodyT }>(
    '/v1/auth/mfa/verify',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['mfa'],
        summary: "Answer a login's second-factor challenge",
        description:
          'With the `mfa_token` of a login answered `mfa_required`: a code from the authenticator (`method: totp`, the default) or one of the recovery codes (`method: recovery_code`). Returns the tokens; their `amr` is `["pwd","otp"]`. A wrong, reused or expired answer is a 401; wrong codes count toward the account’s login throttle (429 with `Retry-After`), and a challenge takes five.',
        body: MfaVerifyBody,
        response: { 200: TokenResponse, ...errors, ...tooMany },
      },
    },
    async (request) =>
      tokenOut(
        await mfaSignIn.verify(callerOf(request), {
          mfaToken: request.body.mfa_token,
          method: request.body.method,
          code: request.body.code,
        }),
      ),
  );

  app.post<{ Body: TotpEnrolBodyT }>(
    '/v1/auth/mfa/totp/enrol',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['mfa'],
        summary: 'Start enrolling an authenticator app (TOTP)',
        description:
          'With a bearer token (a signed-in person), or with the `mfa_token` of a login answered `mfa_enrolment_required`. Returns the secret and the otpauth:// URI (show it as a QR code); the factor is pending until `POST /v1/auth/mfa/totp/confirm` gets its first code. One authenticator per person: 409 when one is enrolled.',
        security,
        body: TotpEnrolBody,
        response: { 200: TotpEnrolResponse, ...errors, ...conflict },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { mfa_token: mfaToken, label } = request.body;
      const started =
        mfaToken !== undefined
          ? await mfaSignIn.enrolStart(caller, { mfaToken, label })
          : await mfa.startTotp(await mfa.self(caller), label);
      return { factor_id: started.factorId, secret: started.secret, otpauth_uri: started.uri };
    },
  );

  app.post<{ Body: TotpConfirmBodyT }>(
    '/v1/auth/mfa/totp/confirm',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['mfa'],
        summary: 'Confirm an authenticator with its first code',
        description:
          'Confirms the pending factor. The first factor comes with ten recovery codes, shown only here. With an enrolment `mfa_token` the sign-in completes too: the answer carries the tokens (amr `["pwd","otp"]`). A code that does not match is a 422 with a bearer token, a 401 (counted by the login throttle) with an `mfa_token`.',
        security,
        body: TotpConfirmBody,
        response: { 200: TotpConfirmResponse, ...errors, ...notFound, ...conflict, ...tooMany },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { mfa_token: mfaToken, factor_id: factorId, code } = request.body;
      if (mfaToken !== undefined) {
        const done = await mfaSignIn.enrolConfirm(caller, { mfaToken, factorId, code });
        return { factor_id: done.factorId, recovery_codes: done.recoveryCodes, ...tokenOut(done.pair) };
      }
      const confirmed = await mfa.confirmTotpForCaller(caller, { factorId, code });
      return { factor_id: confirmed.factor.id, recovery_codes: confirmed.recoveryCodes };
    },
  );

  app.get(
    '/v1/auth/mfa/factors',
    {
      schema: {
        tags: ['mfa'],
        summary: "The caller's second factors",
        security,
        response: { 200: FactorsResponse, 401: errors[401] },
      },
    },
    async (request) => {
      const { factors, recoveryCodesLeft } = await mfa.listFactors(callerOf(request));
      return { factors: factors.map(factorOut), recovery_codes_left: recoveryCodesLeft };
    },
  );

  app.delete<{ Params: FactorParamsT }>(
    '/v1/auth/mfa/factors/:factor_id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Remove one of your second factors',
        description:
          'Needs a token from a sign-in with a second factor (403 `Multi-factor authentication required...` otherwise). Removing the last factor removes the recovery codes too.',
        security,
        params: FactorParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errors, ...notFound },
      },
    },
    async (request, reply) => {
      await mfa.removeFactor(callerOf(request), request.params.factor_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/auth/mfa/recovery-codes',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Replace your recovery codes',
        description:
          'Ten new single-use codes (shown only here); the old ones stop working. Needs a second-factor sign-in and an enrolled factor.',
        security,
        response: { 200: RecoveryCodesResponse, ...errors, ...conflict },
      },
    },
    async (request) => ({ recovery_codes: await mfa.regenerateRecoveryCodes(callerOf(request)) }),
  );

  app.delete<{ Params: UserParamsT }>(
    '/v1/users/:user_id/mfa',
    {
      schema: {
        tags: ['mfa'],
        summary: "Reset a user's second factors (admin)",
        description:
          "For a user who lost their authenticator: removes their factors and recovery codes and ends their sessions. A tenant's admin, for its own users (another tenant's user is a 404).",
        security,
        params: UserParams,
        response: { 200: MfaResetResponse, ...errors, ...notFound },
      },
    },
    async (request) => {
      const r = await mfa.resetUser(callerOf(request), request.params.user_id);
      return { factors_removed: r.factorsRemoved, revoked_count: r.sessionsRevoked };
    },
  );

  app.get<{ Querystring: MfaPolicyQueryT }>(
    '/v1/mfa/policy',
    {
      schema: {
        tags: ['mfa'],
        summary: "The tenant's MFA policy (admin)",
        description:
          'The roles whose holders must sign in with a second factor. `source: platform` when the tenant has not set its own (IDENTITY_MFA_REQUIRED_ROLES applies).',
        security,
        querystring: MfaPolicyQuery,
        response: { 200: MfaPolicyOut, ...errors },
      },
    },
    async (request) => policyOut(await mfaPolicy.get(callerOf(request), request.query.tenant_id)),
  );

  app.put<{ Body: MfaPolicyBodyT }>(
    '/v1/mfa/policy',
    {
      schema: {
        tags: ['mfa'],
        summary: "Set the tenant's MFA policy (admin)",
        description:
          "`{required_roles: [...]}`: holders of these roles must sign in with a second factor (those without one are asked to enrol). Sensitive actions (certifying a pack, deciding an approval, an operator's action in another tenant) still demand a second factor of the platform's roles. Changing the policy needs a second-factor sign-in when the caller's role is covered.",
        security,
        body: MfaPolicyBody,
        response: { 200: MfaPolicyOut, ...errors },
      },
    },
    async (request) =>
      policyOut(
        await mfaPolicy.set(callerOf(request), {
          requiredRoles: request.body.required_roles,
          tenantId: request.body.tenant_id,
        }),
      ),
  );
}
