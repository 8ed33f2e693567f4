// TypeBox schemas of the OIDC routes: client registration, key rotation and the sign-in forms.
import { Type, type Static } from '@sinclair/typebox';
import { LIMITS, PATTERNS } from '../../subgraphs/identity/identity.rules';

export const ClientBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 20 }),
    confidential: Type.Optional(Type.Boolean({ default: false })),
    first_party: Type.Optional(Type.Boolean({ default: false })),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.tenantId, pattern: PATTERNS.tenantId })),
  },
  { additionalProperties: false },
);
export type ClientBodyT = Static<typeof ClientBody>;

const Client = Type.Object({
  client_id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(),
  redirect_uris: Type.Array(Type.String()),
  confidential: Type.Boolean(),
  first_party: Type.Boolean(),
  created_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const ClientCreated = Type.Intersect([
  Client,
  Type.Object({ client_secret: Type.Optional(Type.String({ description: 'Shown once; confidential clients only' })) }),
]);
export const ClientList = Type.Object({ clients: Type.Array(Client) });
export const ClientListQuery = Type.Object({
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.tenantId, pattern: PATTERNS.tenantId })),
});
export type ClientListQueryT = Static<typeof ClientListQuery>;

export const RotateBody = Type.Object(
  { immediate: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export type RotateBodyT = Static<typeof RotateBody>;
export const Rotated = Type.Object({
  kid: Type.String(),
  alg: Type.String(),
  activates_at: Type.String({ format: 'date-time' }),
});

export const InteractionParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 100 }) });
export type InteractionParamsT = Static<typeof InteractionParams>;
export const LoginForm = Type.Object({
  username: Type.String({ minLength: 1, maxLength: LIMITS.username }),
  password: Type.String({ minLength: 1, maxLength: LIMITS.passwordMax }),
});
export type LoginFormT = Static<typeof LoginForm>;
export const MfaForm = Type.Object({
  mfa_token: Type.String({ minLength: 1, maxLength: 200 }),
  code: Type.String({ minLength: 1, maxLength: 64 }),
  method: Type.Optional(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code')])),
});
export type MfaFormT = Static<typeof MfaForm>;
export const ConsentForm = Type.Object({ decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]) });
export type ConsentFormT = Static<typeof ConsentForm>;
