// Route schemas of the ledger's REST door (TypeBox): one source for input validation (FastAPI's
// 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  DEFAULT_LIMIT,
  MAX_APPEND_BATCH,
  MAX_LIMIT,
  MAX_OFFSET,
  MAX_STRING,
} from '../../subgraphs/ledger/ledger.service';

/** An optional string that may also be sent as null (pydantic's Optional[str]). */
const NullableString = (max?: number) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...(max ? { maxLength: max } : {}) });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: MAX_STRING, description });
const Hash = Type.String({ minLength: 64, maxLength: 64, description: 'SHA-256, 64 hex characters' });
const Timestamp = Type.String({
  description: 'ISO 8601, microseconds, UTC offset, e.g. 2026-11-22T04:05:06.123456+00:00',
});

export const AppendBody = Type.Object({
  tenant_id: Id('Tenant whose chain the event extends'),
  event_type: Id('Event type, e.g. rule_execution'),
  event_data: Type.Object({}, { additionalProperties: true, description: 'Any JSON object' }),
  user_id: Type.Optional(NullableString(MAX_STRING)),
  correlation_id: Type.Optional(NullableString(MAX_STRING)),
  description: Type.Optional(NullableString()),
  idempotency_key: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      maxLength: MAX_STRING,
      description: 'Unique per tenant: a retried append with the same key returns the original event',
    }),
  ),
});
export type AppendBody = Static<typeof AppendBody>;

// Documents the header in OpenAPI; its checks (one value, agreeing with the body) are in
// platform/http/idempotency-key.ts so that they answer in FastAPI's words.
export const AppendHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ description: "The same key as the body's idempotency_key, for clients that send keys as a header" }),
  ),
});

export const AppendResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  chain_hash: Hash,
  created_at: Timestamp,
});

// POST /v1/ledger/append/batch: one tenant's pending audit events in one call (the outbox relay).
export const AppendBatchBody = Type.Object({
  events: Type.Array(AppendBody, { minItems: 1, maxItems: MAX_APPEND_BATCH, description: 'Appended in this order' }),
});
export type AppendBatchBody = Static<typeof AppendBatchBody>;

export const AppendBatchResponse = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      chain_hash: Hash,
      created_at: Timestamp,
      replayed: Type.Boolean({ description: 'An earlier append with the same idempotency key' }),
    }),
    { description: 'One per event, in the order sent' },
  ),
});

export const TenantQuery = Type.Object({ tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")) });
export type TenantQuery = Static<typeof TenantQuery>;

const TimeRange = {
  start_time: Type.Optional(
    Type.String({ format: 'date-time', description: 'Inclusive lower bound on created_at (ISO 8601 with offset)' }),
  ),
  end_time: Type.Optional(
    Type.String({ format: 'date-time', description: 'Exclusive upper bound on created_at (ISO 8601 with offset)' }),
  ),
};

export const EventsQuery = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  event_type: Type.Optional(Type.String({ maxLength: MAX_STRING })),
  user_id: Type.Optional(Type.String({ maxLength: MAX_STRING })),
  correlation_id: Type.Optional(Type.String({ maxLength: MAX_STRING })),
  ...TimeRange,
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
});
export type EventsQuery = Static<typeof EventsQuery>;

export const ExportQuery = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  event_type: Type.Optional(Type.String({ maxLength: MAX_STRING })),
});
export type ExportQuery = Static<typeof ExportQuery>;

export const EntryParams = Type.Object({ entry_id: Type.String({ maxLength: 64 }) });
export type EntryParams = Static<typeof EntryParams>;

export const AuditReportBody = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  ...TimeRange,
});
export type AuditReportBody = Static<typeof AuditReportBody>;

export const LedgerEventSchema = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  seq: Type.Integer({ description: "Position in the tenant's chain, from 1" }),
  event_type: Type.String(),
  event_data: Type.Object({}, { additionalProperties: true }),
  created_at: Timestamp,
  content_hash: Hash,
  previous_hash: Hash,
  chain_hash: Hash,
  user_id: NullableString(),
  correlation_id: NullableString(),
  description: NullableString(),
  written_by: {
    ...NullableString(),
    description: 'The authenticated caller who wrote the event (not covered by the hash rules)',
  },
  trace_id: {
    ...NullableString(),
    description: 'The trace of the request that caused the event, 32 hex characters (not covered by the hash rules)',
  },
});

export const EventPageSchema = Type.Object({
  events: Type.Array(LedgerEventSchema),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const VerifyResponse = Type.Object({
  valid: Type.Boolean(),
  total_events: Type.Integer(),
  error: NullableString(),
});

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 422: Detail, 503: Detail };
}

// Proofs (docs/ledger.md, "Proofs"): checkpoints, inclusion and consistency.
const Size = (description: string) => Type.Integer({ minimum: 1, maximum: 2 ** 52, description });

export const CheckpointSchema = Type.Object({
  format: Type.Literal('ledger-checkpoint/v1'),
  id: Type.String({ format: 'uuid' }),
  tenant_id: Type.String(),
  tree_size: Type.Integer(),
  root_hash: Hash,
  timestamp: Timestamp,
  key_id: Type.String({ description: 'RFC 7638 thumbprint of the signing key, its kid in the JWKS' }),
  signature: Type.String({
    description:
      'base64url Ed25519 signature of JSON ["ledger-checkpoint/v1", tenant_id, tree_size, root_hash, timestamp, key_id]',
  }),
});

export const CheckpointListQuery = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
});
export type CheckpointListQuery = Static<typeof CheckpointListQuery>;

export const CheckpointBody = Type.Object({ tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")) });
export type CheckpointBody = Static<typeof CheckpointBody>;

export const InclusionQuery = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  entry_id: Type.Optional(Type.String({ description: 'The entry, by id (or give seq)' })),
  seq: Type.Optional(Size('The entry, by its position in the chain (or give entry_id)')),
  tree_size: Type.Optional(
    Size("A checkpoint's tree size; defaults to the latest checkpoint (one is taken when the entry is newer)"),
  ),
});
export type InclusionQuery = Static<typeof InclusionQuery>;

export const ConsistencyQuery = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  first: Size("The older checkpoint's tree size"),
  second: Type.Optional(Size("The newer checkpoint's tree size; defaults to the latest")),
});
export type ConsistencyQuery = Static<typeof ConsistencyQuery>;

export const InclusionResponse = Type.Object({
  type: Type.Literal('inclusion'),
  tenant_id: Type.String(),
  leaf_index: Type.Integer(),
  tree_size: Type.Integer(),
  entry: LedgerEventSchema,
  audit_path: Type.Array(Hash),
  checkpoint: CheckpointSchema,
});

export const InclusionBatchBody = Type.Object({
  tenant_id: Type.Optional(Id("Tenant; defaults to the caller's")),
  entry_ids: Type.Array(Type.String({ maxLength: 64 }), {
    minItems: 1,
    maxItems: 1000,
    description: 'The entries, by id (at most 1,000)',
  }),
  tree_size: Size("An existing checkpoint's tree size: every proof is against that checkpoint"),
});
export type InclusionBatchBody = Static<typeof InclusionBatchBody>;

export const InclusionBatchResponse = Type.Object({
  type: Type.Literal('inclusion_batch'),
  tenant_id: Type.String(),
  tree_size: Type.Integer(),
  checkpoint: CheckpointSchema,
  proofs: Type.Array(
    Type.Object({ leaf_index: Type.Integer(), entry: LedgerEventSchema, audit_path: Type.Array(Hash) }),
  ),
  not_found: Type.Array(Type.String(), {
    description: "Ids that are not entries of the tenant's log within the tree",
  }),
});

export const ConsistencyResponse = Type.Object({
  type: Type.Literal('consistency'),
  tenant_id: Type.String(),
  first: CheckpointSchema,
  second: CheckpointSchema,
  proof: Type.Array(Hash),
});

export const JwksResponse = Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) });

export function proofResponses(ok: TSchema): Record<number, TSchema> {
  return { ...responses(ok), 404: Detail, 429: Detail };
}
