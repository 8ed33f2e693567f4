// The REST edge's types: one TypeBox schema per body, query and response, used by Fastify to
// validate input, serialise output and document the route in /docs/openapi.json.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_CURSOR_LENGTH } from '../../platform/pagination/cursor';
import { LIMITS, PATTERNS } from '../../subgraphs/identity/identity.rules';
import { strictMembers } from '../../platform/http/validation';

export const Detail = Type.Object({ detail: Type.String() }, { description: 'Error (FastAPI shape)' });
export const ValidationDetail = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  },
  { description: 'Validation error (FastAPI shape)' },
);

export const errors = {
  401: { ...Detail, description: 'Missing, invalid or expired credentials (with `WWW-Authenticate: Bearer`)' },
  403: { ...Detail, description: 'Caller lacks the needed role' },
  422: ValidationDetail,
} as const;

const Username = Type.String({ minLength: 1, maxLength: LIMITS.username });
const Password = Type.String({ minLength: 1, maxLength: LIMITS.passwordMax });
const TenantId = Type.String({ minLength: 1, maxLength: LIMITS.tenantId, pattern: PATTERNS.tenantId });
const Scope = Type.String({ minLength: 1, maxLength: LIMITS.scope, pattern: PATTERNS.scope });
const Scopes = Type.Array(Scope, { maxItems: LIMITS.scopesPerRole });
const RoleName = Type.String({ minLength: 1, maxLength: LIMITS.roleName, pattern: PATTERNS.roleName });
const Timestamp = Type.String({ format: 'date-time' });

export const PasswordForm = Type.Object({
  username: Username,
  password: Password,
  grant_type: Type.Literal('password', { description: 'must be `password`' }),
  scope: Type.Optional(Type.String({ maxLength: 1000 })),
  client_id: Type.Optional(Type.String({ maxLength: 255 })),
  client_secret: Type.Optional(Type.String({ maxLength: 1024 })),
  tenant_id: Type.Optional(TenantId),
});

export const LoginBody = Type.Object({
  username: Username,
  password: Password,
  tenant_id: Type.Optional(TenantId),
});

export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 512 }) });

export const ClientCredentialsBody = Type.Object({
  grant_type: Type.Literal('client_credentials'),
  client_id: Type.String({ minLength: 1, maxLength: LIMITS.username }),
  client_secret: Type.String({ minLength: 1, maxLength: 1024 }),
  scope: Type.Optional(Type.String({ maxLength: 1000 })),
});

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'seconds (ACCESS_TOKEN_EXPIRE_MINUTES * 60)' }),
  refresh_token: Type.String({ description: 'opaque; single use, rotated by POST /v1/auth/refresh' }),
});

export const ServiceTokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  scope: Type.String({ description: 'space-separated scopes the token carries' }),
});

export const RevokeResponse = Type.Object({ revoked: Type.Boolean() });

/** Who the token says the caller is: what /v1/auth/verify and /v1/me both report. */
const callerFields = {
  username: Type.String(),
  tenant_id: Type.String(),
  roles: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
};

export const VerifyResponse = Type.Object({
  valid: Type.Boolean(),
  ...callerFields,
  amr: Type.Optional(Type.Array(Type.String(), { description: 'how the person signed in (RFC 8176): pwd, otp' })),
  acr: Type.Optional(Type.String({ description: 'assurance level: aal1 (password) or aal2 (second factor)' })),
});

export const MeResponse = Type.Object({ ...callerFields, email: Type.Union([Type.String(), Type.Null()]) });

export const TenantOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  is_active: Type.Boolean(),
  created_at: Timestamp,
});
// Exactly the spec's list shape: `{tenants: [{id, name}]}`.
export const TenantsResponse = Type.Object({
  tenants: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
});
// The admin writes refuse unknown members (strictMembers) where every other REST body ignores them:
// they grant privileges, and a misspelt or unsupported member dropped in silence would leave an
// admin believing a grant was made (docs/decisions.md, "Unknown members").
export const TenantBody = strictMembers(
  Type.Object(
    {
      id: TenantId,
      name: Type.String({ minLength: 1, maxLength: LIMITS.tenantName }),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
);

export const RoleQuery = Type.Object({
  role_name: RoleName,
  scopes: Type.Optional(
    Type.Array(Scope, { maxItems: LIMITS.scopesPerRole, description: 'repeat the parameter or separate with commas' }),
  ),
  description: Type.Optional(Type.String({ maxLength: LIMITS.description })),
  tenant_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'platform operators: the tenant the role belongs to (none: a platform role); others: their own tenant only',
    }),
  ),
});
export const RoleBody = strictMembers(
  Type.Object(
    {
      scopes: Type.Optional(Scopes),
      description: Type.Optional(Type.String({ maxLength: LIMITS.description })),
    },
    { additionalProperties: false },
  ),
);
export const RoleOut = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  tenant_id: Type.Union([Type.String(), Type.Null()], {
    description: 'the tenant the role belongs to; null for a platform role',
  }),
});
export const RolesResponse = Type.Object({ roles: Type.Array(RoleOut) });

export const UserOut = Type.Object({
  id: Type.String({ format: 'uuid' }),
  username: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  tenant_id: Type.String(),
  roles: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  is_verified: Type.Boolean(),
  is_service: Type.Boolean(),
  created_at: Timestamp,
  last_login: Type.Union([Timestamp, Type.Null()]),
});
export const UserBody = strictMembers(
  Type.Object(
    {
      username: Type.String({ minLength: 1, maxLength: LIMITS.username, pattern: PATTERNS.username }),
      password: Type.String({ minLength: LIMITS.passwordMin, maxLength: LIMITS.passwordMax }),
      email: Type.Optional(
        Type.Union([Type.String({ maxLength: LIMITS.email, pattern: PATTERNS.email }), Type.Null()]),
      ),
      tenant_id: Type.Optional(TenantId),
      roles: Type.Optional(Type.Array(RoleName, { maxItems: 50, description: "default ['user']" })),
      is_verified: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
);
export const UsersQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: MAX_CURSOR_LENGTH })),
  tenant_id: Type.Optional(TenantId),
});
export const UsersResponse = Type.Object({
  users: Type.Array(UserOut),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export const UserParams = Type.Object({ user_id: Type.String({ maxLength: 64 }) });
export const AssignRoleBody = strictMembers(Type.Object({ role_name: RoleName }, { additionalProperties: false }));

export const ServiceAccountBody = strictMembers(
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: LIMITS.roleName - 8, pattern: PATTERNS.serviceName }),
      scopes: Type.Optional(Scopes),
      tenant_id: Type.Optional(TenantId),
      description: Type.Optional(Type.String({ maxLength: LIMITS.description })),
    },
    { additionalProperties: false },
  ),
);
export const ServiceAccountOut = Type.Object({
  id: Type.String({ format: 'uuid' }),
  client_id: Type.String(),
  client_secret: Type.String({ description: 'shown once; store it now' }),
  tenant_id: Type.String(),
  roles: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
});

export const InfoResponse = Type.Object({
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  capabilities: Type.Array(Type.String()),
  token: Type.Object({
    algorithm: Type.String(),
    issuer: Type.String(),
    expires_in: Type.Integer(),
    refresh_token_expire_days: Type.Integer(),
  }),
});

export type PasswordFormT = Static<typeof PasswordForm>;
export type LoginBodyT = Static<typeof LoginBody>;
export type RefreshBodyT = Static<typeof RefreshBody>;
export type ClientCredentialsBodyT = Static<typeof ClientCredentialsBody>;
export type TenantBodyT = Static<typeof TenantBody>;
export type RoleQueryT = Static<typeof RoleQuery>;
export type RoleBodyT = Static<typeof RoleBody>;
export type UserBodyT = Static<typeof UserBody>;
export type UsersQueryT = Static<typeof UsersQuery>;
export type UserParamsT = Static<typeof UserParams>;
export type AssignRoleBodyT = Static<typeof AssignRoleBody>;
export type ServiceAccountBodyT = Static<typeof ServiceAccountBody>;
