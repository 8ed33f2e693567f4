// TypeBox schemas of the multi-factor and session routes (validation, serialisation, OpenAPI).
import { Type, type Static } from '@sinclair/typebox';
import { strictMembers } from '../../platform/http/validation';
import { LIMITS, PATTERNS } from '../../subgraphs/identity/identity.rules';

const Timestamp = Type.String({ format: 'date-time' });
const MfaToken = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'the challenge token from the login answer',
});
const Code = Type.String({ minLength: 1, maxLength: 64 });
const Uuid = Type.String({ maxLength: 64 });

/** A login's 401: the usual `{detail}`, plus the challenge when the password was right but a second factor is owed. */
export const LoginUnauthorized = Type.Object(
  {
    detail: Type.String(),
    error: Type.Optional(
      Type.String({ description: '`mfa_required` (answer with a code) or `mfa_enrolment_required` (enrol first)' }),
    ),
    mfa_token: Type.Optional(Type.String({ description: 'single use; answer within `expires_in` seconds' })),
    factors: Type.Optional(
      Type.Array(Type.String(), {
        description: 'mfa_required: methods that answer (`totp`, `recovery_code`); enrolment: kinds to enrol (`totp`)',
      }),
    ),
    expires_in: Type.Optional(Type.Integer()),
  },
  { description: 'Wrong credentials, or a second factor owed (with `WWW-Authenticate: Bearer`)' },
);

export const MfaVerifyBody = Type.Object({
  mfa_token: MfaToken,
  code: Code,
  method: Type.Optional(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code')], { default: 'totp' })),
});

export const TotpEnrolBody = Type.Object({
  mfa_token: Type.Optional(MfaToken),
  label: Type.Optional(Type.String({ maxLength: 100 })),
});
export const TotpEnrolResponse = Type.Object({
  factor_id: Type.String({ format: 'uuid' }),
  secret: Type.String({ description: 'base32; shown only now' }),
  otpauth_uri: Type.String({ description: 'otpauth://totp/... — render it as a QR code for the app to scan' }),
});

export const TotpConfirmBody = Type.Object({
  factor_id: Uuid,
  code: Code,
  mfa_token: Type.Optional(MfaToken),
});

export const FactorOut = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  confirmed: Type.Boolean(),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});
export const TotpConfirmResponse = Type.Object({
  factor_id: Type.String({ format: 'uuid' }),
  recovery_codes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'ten single-use codes, shown only now (null when the user still had codes)',
  }),
  access_token: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.Literal('bearer')),
  expires_in: Type.Optional(Type.Integer()),
  refresh_token: Type.Optional(Type.String()),
});
export const FactorsResponse = Type.Object({
  factors: Type.Array(FactorOut),
  recovery_codes_left: Type.Integer(),
});
export const FactorParams = Type.Object({ factor_id: Uuid });
export const RecoveryCodesResponse = Type.Object({ recovery_codes: Type.Array(Type.String()) });

const TenantId = Type.String({ minLength: 1, maxLength: LIMITS.tenantId, pattern: PATTERNS.tenantId });
export const MfaPolicyQuery = Type.Object({ tenant_id: Type.Optional(TenantId) });
export const MfaPolicyBody = strictMembers(
  Type.Object(
    {
      required_roles: Type.Array(
        Type.String({ minLength: 1, maxLength: LIMITS.roleName, pattern: PATTERNS.roleName }),
        {
          maxItems: 50,
        },
      ),
      tenant_id: Type.Optional(TenantId),
    },
    { additionalProperties: false },
  ),
);
export const MfaPolicyOut = Type.Object({
  tenant_id: Type.String(),
  required_roles: Type.Array(Type.String()),
  source: Type.Union([Type.Literal('tenant'), Type.Literal('platform')]),
  updated_at: Type.Union([Timestamp, Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
});
export const MfaResetResponse = Type.Object({ factors_removed: Type.Integer(), revoked_count: Type.Integer() });

export const SessionOut = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the refresh-token family' }),
  created_at: Timestamp,
  last_used_at: Timestamp,
  expires_at: Timestamp,
  amr: Type.Array(Type.String()),
  current: Type.Boolean({ description: "the session of the caller's own token" }),
});
export const SessionsResponse = Type.Object({ sessions: Type.Array(SessionOut) });
export const SessionParams = Type.Object({ session_id: Uuid });
export const UserSessionParams = Type.Object({ user_id: Uuid, session_id: Uuid });
export const RevokedResponse = Type.Object({ revoked_count: Type.Integer() });

export type MfaVerifyBodyT = Static<typeof MfaVerifyBody>;
export type TotpEnrolBodyT = Static<typeof TotpEnrolBody>;
export type TotpConfirmBodyT = Static<typeof TotpConfirmBody>;
export type FactorParamsT = Static<typeof FactorParams>;
export type MfaPolicyQueryT = Static<typeof MfaPolicyQuery>;
export type MfaPolicyBodyT = Static<typeof MfaPolicyBody>;
export type SessionParamsT = Static<typeof SessionParams>;
export type UserSessionParamsT = Static<typeof UserSessionParams>;
