// Route schemas of the config service's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { strictMembers } from '../../platform/http/validation';
import { NAME_PATTERN } from '../../subgraphs/config/config.types';

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN.source });
const TenantId = Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" });
const Id = Type.String({ minLength: 1, maxLength: 64, description: 'A bundle id (UUID)' });
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const Layer = Type.Union([
  Type.Literal('platform'),
  Type.Literal('suite'),
  Type.Literal('module'),
  Type.Literal('tenant'),
]);
const HashBy = Type.Union([Type.Literal('tenant'), Type.Literal('user')]);

export const TenantParams = Type.Object({ tenant_id: TenantId });
export type TenantParams = Static<typeof TenantParams>;
export const BundleParams = Type.Object({ bundle_id: Id });
export type BundleParams = Static<typeof BundleParams>;
export const RolloutParams = Type.Object({ rollout_id: Type.String({ minLength: 1, maxLength: 64 }) });
export type RolloutParams = Static<typeof RolloutParams>;
export const FlagParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }) });
export type FlagParams = Static<typeof FlagParams>;

export const EffectiveQuery = Type.Object({
  suite: Type.Optional(Name),
  module: Type.Optional(Name),
  namespace: Type.Optional(Name),
  user: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The user a per-user rollout buckets (default: the caller)',
    }),
  ),
  as_of: Type.Optional(
    Type.String({ minLength: 1, maxLength: 40, description: 'A change-log seq, or an ISO 8601 time' }),
  ),
  resolve_secrets: Type.Optional(
    Type.Boolean({ description: "Resolve secret references (a service token with the 'config:secrets' scope)" }),
  ),
});
export type EffectiveQuery = Static<typeof EffectiveQuery>;

export const PublishBody = strictMembers(
  Type.Object(
    {
      layer: Layer,
      scope: Type.Optional(Name),
      namespace: Name,
      content: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description: 'The configuration of this namespace at this layer',
      }),
      tenant_id: Type.Optional(TenantId),
    },
    { additionalProperties: false },
  ),
);
export type PublishBody = Static<typeof PublishBody>;

export const PromoteBody = Type.Object(
  {
    percentage: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
    hash_by: Type.Optional(HashBy),
    scheduled_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'Apply the approved change at this time' }),
    ),
  },
  { additionalProperties: false },
);
export type PromoteBody = Static<typeof PromoteBody>;

export const DiffQuery = Type.Object({ to: Id });
export type DiffQuery = Static<typeof DiffQuery>;

export const OfrepBody = Type.Object({
  context: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'The OpenFeature evaluation context' }),
  ),
});
export type OfrepBody = Static<typeof OfrepBody>;

const BundleMembers = {
  id: Type.String(),
  tenant_id: NullableString,
  layer: Layer,
  scope: Type.String(),
  namespace: Type.String(),
  version: Type.Integer(),
  sha256: Type.String({ description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of content' }),
  schema_version: NullableString,
  author: Type.String(),
  created_at: Type.String(),
};
export const BundleView = Type.Object({ ...BundleMembers, content: Type.Record(Type.String(), Type.Unknown()) });
export const BundleSummary = Type.Object(BundleMembers);
export const BundleList = Type.Object({ versions: Type.Array(BundleSummary) });

export const ChangeView = Type.Object({
  seq: Type.Integer(),
  bundle_id: Type.String(),
  previous_bundle_id: NullableString,
  layer: Layer,
  scope: Type.String(),
  namespace: Type.String(),
  percentage: Type.Integer(),
  hash_by: HashBy,
  kind: Type.String(),
  rollout_id: NullableString,
  actor: Type.String(),
  approved_by: NullableString,
  signature: Type.String({ description: 'Ed25519, base64url, over the canonical change statement' }),
  key_id: Type.String({ description: 'kid in /.well-known/config-keys.json' }),
  at: Type.String(),
});
export const ChangeList = Type.Object({ changes: Type.Array(ChangeView) });

export const RolloutView = Type.Object({
  id: Type.String(),
  bundle_id: Type.String(),
  percentage: Type.Integer(),
  hash_by: HashBy,
  status: Type.String({ description: 'pending_approval, scheduled, applied, rejected, failed' }),
  requested_by: Type.String(),
  approved_by: NullableString,
  workflow_id: NullableString,
  approval_task_id: NullableString,
  scheduled_at: NullableString,
  change_seq: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String(),
});

export const EffectiveView = Type.Object({
  tenant_id: Type.String(),
  seq: Type.Integer({ description: 'The change-log position the answer reflects (as_of reproduces it)' }),
  config: Type.Record(Type.String(), Type.Unknown()),
  provenance: Type.Array(
    Type.Object({
      pointer: Type.String(),
      layer: Layer,
      bundle_id: Type.String(),
      version: Type.Integer(),
      seq: Type.Integer(),
    }),
  ),
});

export const DiffView = Type.Object({
  from: BundleSummary,
  to: BundleSummary,
  ops: Type.Array(Type.Object({ op: Type.String(), path: Type.String(), value: Type.Optional(Type.Unknown()) })),
});

export const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });

export const OfrepResult = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.Unknown()),
  reason: Type.Optional(Type.String()),
  variant: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  errorCode: Type.Optional(Type.String()),
  errorDetails: Type.Optional(Type.String()),
});
export const OfrepBulk = Type.Object({ flags: Type.Array(OfrepResult) });

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema, status = 200): Record<number, TSchema> {
  return { [status]: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 413: Detail, 422: Detail, 503: Detail };
}
