// WebAuthn routes next to the TOTP ones: registering a security key or passkey (signed in, or
// with an enrolment challenge before the first sign-in), answering a sign-in challenge with one,
// and renaming a factor. Thin adapters over subgraphs/identity's WebauthnService and
// WebauthnSignInService; listing and removal are the factor routes' (mfa.routes.ts).
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import { tokenOut } from './auth.routes';
import { errors, TokenResponse } from './identity.schemas';
import { FactorParams, TotpConfirmResponse, type FactorParamsT } from './mfa.schemas';
import {
  AuthenticateOptionsBody,
  AuthenticateVerifyBody,
  CeremonyOptions,
  FactorRenameBody,
  RegisterOptionsBody,
  RegisterVerifyBody,
  type AuthenticateOptionsBodyT,
  type AuthenticateVerifyBodyT,
  type FactorRenameBodyT,
  type RegisterOptionsBodyT,
  type RegisterVerifyBodyT,
} from './webauthn.schemas';

const security = [{ bearerAuth: [] }];
const detail = (description: string) => ({
  type: 'object',
  properties: { detail: { type: 'string' } },
  description,
});
const tooMany = { 429: detail('Too many failed attempts on this account (with `Retry-After`)') };
const notFound = { 404: detail('Not found (or not yours)') };
const conflict = { 409: detail('Conflict') };

export function registerWebauthnRoutes(app: FastifyInstance, services: IdentityServices): void {
  const { webauthn, webauthnSignIn } = services;

  app.post<{ Body: RegisterOptionsBodyT }>(
    '/v1/auth/mfa/webauthn/register/options',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['mfa'],
        summary: 'Start registering a security key or passkey',
        description:
          'With a bearer token (a signed-in person; one who already has a factor needs a second-factor sign-in), or with the `mfa_token` of a login answered `mfa_enrolment_required`. Returns the options for `navigator.credentials.create()`; their challenge is single use and expires.',
        security,
        body: RegisterOptionsBody,
        response: { 200: CeremonyOptions, ...errors },
      },
    },
    async (request) => {
      const mfaToken = request.body.mfa_token;
      return mfaToken !== undefined
        ? webauthnSignIn.registrationOptions({ mfaToken })
        : webauthn.registrationOptionsForCaller(callerOf(request));
    },
  );

  app.post<{ Body: RegisterVerifyBodyT }>(
    '/v1/auth/mfa/webauthn/register/verify',
    {
      config: { auth: 'optional' },
      schema: {
        tags: ['mfa'],
        summary: 'Finish registering a security key or passkey',
        description:
          'The attestation from `navigator.credentials.create()`: checked against the challenge, the expected origins and the RP id, then kept as a factor. The first factor comes with ten recovery codes, shown only here. With an enrolment `mfa_token` the sign-in completes too (amr `["pwd","hwk","user"]`, or `swk` for a synced passkey). A response that does not verify is a 422 with a bearer token, a 401 (counted by the login throttle) with an `mfa_token`.',
        security,
        body: RegisterVerifyBody,
        response: { 200: TotpConfirmResponse, ...errors, ...conflict, ...tooMany },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { mfa_token: mfaToken, label } = request.body;
      const credential = request.body.credential as RegistrationResponseJSON;
      if (mfaToken !== undefined) {
        const done = await webauthnSignIn.enrol(caller, { mfaToken, credential, label });
        return { factor_id: done.factorId, recovery_codes: done.recoveryCodes, ...tokenOut(done.pair) };
      }
      const registered = await webauthn.registerForCaller(caller, { credential, label });
      return { factor_id: registered.factor.id, recovery_codes: registered.recoveryCodes };
    },
  );

  app.post<{ Body: AuthenticateOptionsBodyT }>(
    '/v1/auth/mfa/webauthn/authenticate/options',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['mfa'],
        summary: "Options for answering a login's challenge with a security key or passkey",
        description:
          'With the `mfa_token` of a login answered `mfa_required` (its `factors` include `webauthn`). Returns the options for `navigator.credentials.get()`, listing the person’s own credentials; the challenge is single use and expires.',
        body: AuthenticateOptionsBody,
        response: { 200: CeremonyOptions, ...errors, ...notFound },
      },
    },
    async (request) => webauthnSignIn.authenticationOptions({ mfaToken: request.body.mfa_token }),
  );

  app.post<{ Body: AuthenticateVerifyBodyT }>(
    '/v1/auth/mfa/webauthn/authenticate/verify',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['mfa'],
        summary: "Answer a login's challenge with a security key or passkey",
        description:
          'The assertion from `navigator.credentials.get()`. Returns the tokens; their `amr` is `["pwd","hwk","user"]` (`swk` for a synced passkey), `acr` `aal2`. A replayed assertion, one from another origin or RP id, a signature counter that went backwards or a credential that is not the person’s is a 401, audited (`auth_mfa_failed` with its reason) and counted by the login throttle (429 with `Retry-After`).',
        body: AuthenticateVerifyBody,
        response: { 200: TokenResponse, ...errors, ...tooMany },
      },
    },
    async (request) =>
      tokenOut(
        await webauthnSignIn.verify(callerOf(request), {
          mfaToken: request.body.mfa_token,
          credential: request.body.credential as AuthenticationResponseJSON,
        }),
      ),
  );

  app.patch<{ Params: FactorParamsT; Body: FactorRenameBodyT }>(
    '/v1/auth/mfa/factors/:factor_id',
    {
      schema: {
        tags: ['mfa'],
        summary: 'Rename one of your second factors',
        security,
        params: FactorParams,
        body: FactorRenameBody,
        response: { 204: { type: 'null', description: 'Renamed' }, ...errors, ...notFound },
      },
    },
    async (request, reply) => {
      await webauthn.renameFactor(callerOf(request), request.params.factor_id, request.body.label);
      return reply.code(204).send();
    },
  );
}
