// Route schemas of retention policies, legal holds and erasure requests (TypeBox, snake_case
// wire names). Record types and minimums are checked by the domain, so a refusal names the
// legal minimum it fell under (422 at ["body", "retain_days"]).
import { Type, type Static } from '@sinclair/typebox';

const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const RecordType = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'ocr_job | rag_document | rag_conversation | ai_usage | workflow_payload | ingestion_batch',
});

export const RetentionRuleSchema = Type.Object({
  record_type: Type.String(),
  legal_minimum_days: Type.Integer(),
  retain_days: Type.Union([Type.Integer(), Type.Null()]),
  updated_by: Nullable(Type.String()),
  updated_at: Nullable(Type.String()),
});
export const RetentionRuleList = Type.Object({ policies: Type.Array(RetentionRuleSchema) });

export const SetPolicyBody = Type.Object({
  record_type: RecordType,
  retain_days: Type.Integer({ description: 'Days a record is kept after its creation; at least the legal minimum' }),
  tenant_id: Tenant,
});
export type SetPolicyBody = Static<typeof SetPolicyBody>;

export const PolicyParams = Type.Object({ record_type: RecordType });
export type PolicyParams = Static<typeof PolicyParams>;

export const TenantOnlyQuery = Type.Object({ tenant_id: Tenant });
export type TenantOnlyQuery = Static<typeof TenantOnlyQuery>;

export const HoldSchema = Type.Object({
  id: Type.String(),
  record_type: Nullable(Type.String()),
  subject_id: Nullable(Type.String()),
  subject_ref: Nullable(Type.String()),
  reason: Type.String(),
  active: Type.Boolean(),
  placed_by: Nullable(Type.String()),
  placed_at: Type.String(),
  released_by: Nullable(Type.String()),
  released_at: Nullable(Type.String()),
});
export const HoldList = Type.Object({ holds: Type.Array(HoldSchema) });

export const HoldQuery = Type.Object({
  active: Type.Optional(Type.Boolean({ description: 'Only holds not yet released' })),
  tenant_id: Tenant,
});
export type HoldQuery = Static<typeof HoldQuery>;

export const PlaceHoldBody = Type.Object({
  record_type: Type.Optional(Nullable(RecordType)),
  subject_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  reason: Type.String({ minLength: 1, maxLength: 2000 }),
  tenant_id: Tenant,
});
export type PlaceHoldBody = Static<typeof PlaceHoldBody>;

export const HoldParams = Type.Object({ hold_id: Type.String({ format: 'uuid' }) });
export type HoldParams = Static<typeof HoldParams>;

export const TenantOnlyBody = Type.Object({ tenant_id: Tenant });
export type TenantOnlyBody = Static<typeof TenantOnlyBody>;

export const ErasureSchema = Type.Object({
  id: Type.String(),
  subject_ref: Type.String(),
  keys_destroyed: Type.Integer(),
  reason: Nullable(Type.String()),
  requested_by: Nullable(Type.String()),
  requested_at: Type.String(),
});
export const ErasureList = Type.Object({ erasures: Type.Array(ErasureSchema) });

export const ErasureBody = Type.Object({
  subject_id: Type.String({ minLength: 1, maxLength: 255, description: 'The subject as the services know it' }),
  reason: Type.Optional(Type.String({ maxLength: 2000 })),
  tenant_id: Tenant,
});
export type ErasureBody = Static<typeof ErasureBody>;
