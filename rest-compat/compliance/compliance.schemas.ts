// Route schemas of the compliance service's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document. Wire names
// are snake_case. The JSON shapes clients read are in platform/contracts/clients/compliance.api.ts.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { LIMITS } from '../../subgraphs/compliance/compliance.types';

const Detail = Type.Object({ detail: Type.Unknown() });
const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);
const Key = (description: string) =>
  Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description });
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 413: Detail, 422: Detail, 503: Detail };
}

export const TenantQuery = Type.Object({ tenant_id: Tenant });
export type TenantQuery = Static<typeof TenantQuery>;

export const FrameworkParams = Type.Object({ framework: Key('Framework key') });
export type FrameworkParams = Static<typeof FrameworkParams>;

export const ControlParams = Type.Object({ framework: Key('Framework key'), control_id: Key('Control id') });
export type ControlParams = Static<typeof ControlParams>;

export const ImportBody = Type.Object({
  framework: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[a-z0-9][a-z0-9._-]*$',
    description: "The framework's key in the tenant",
  }),
  document: Type.Object(
    {},
    { additionalProperties: true, description: 'The OSCAL 1.0.0 catalog or profile, or a framework mapping' },
  ),
  tenant_id: Tenant,
});
export type ImportBody = Static<typeof ImportBody>;

const Ref = Type.Object({ framework: Type.String(), control_id: Type.String() });

export const FrameworkSchema = Type.Object({
  framework: Type.String(),
  kind: Type.Union([Type.Literal('catalog'), Type.Literal('profile'), Type.Literal('mapping')]),
  oscal_uuid: Type.String(),
  title: Type.String(),
  version: Type.String(),
  based_on: Type.Union([Type.String(), Type.Null()]),
  sha256: Type.String(),
  control_count: Type.Integer(),
  imported_by: Type.Union([Type.String(), Type.Null()]),
  imported_at: Type.String(),
});
export const FrameworkList = Type.Object({ frameworks: Type.Array(FrameworkSchema) });

export const FreshnessSchema = Type.Object({
  status: Type.Union([Type.Literal('fresh'), Type.Literal('expiring'), Type.Literal('stale')]),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  last_collected_at: Type.Union([Type.String(), Type.Null()]),
  evidence_count: Type.Integer(),
});

export const ControlSchema = Type.Object({
  framework: Type.String(),
  control_id: Type.String(),
  title: Type.String(),
  statement: Type.String(),
  parent_id: Type.Union([Type.String(), Type.Null()]),
  maps_to: Type.Array(Ref),
  freshness: FreshnessSchema,
});
export const ControlList = Type.Object({ framework: Type.String(), controls: Type.Array(ControlSchema) });

export const RevisionSchema = Type.Object({
  revision: Type.Integer(),
  content: Type.Unknown(),
  content_sha256: Type.String(),
  collected_at: Type.String(),
  expires_at: Type.String(),
  recorded_by: Type.Union([Type.String(), Type.Null()]),
  ledger_entry_id: Type.Union([Type.String(), Type.Null()]),
  ledger_chain_hash: Type.Union([Type.String(), Type.Null()]),
});

export const EvidenceSchema = Type.Object({
  id: Type.String(),
  source: Type.String(),
  event_id: Type.Union([Type.String(), Type.Null()]),
  event_type: Type.Union([Type.String(), Type.Null()]),
  controls: Type.Array(Ref),
  created_at: Type.String(),
  revisions: Type.Array(RevisionSchema),
});
export const EvidencePage = Type.Object({
  items: Type.Array(EvidenceSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const EvidenceQuery = Type.Object({
  framework: Type.Optional(Key('Only evidence for this framework (its controls and the controls they map to)')),
  control_id: Type.Optional(Key('... and this control of it')),
  from: Type.Optional(DateTime('Evidence with a revision collected at or after this time')),
  to: Type.Optional(DateTime('... and before this time')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.maxPageSize })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  tenant_id: Tenant,
});
export type EvidenceQuery = Static<typeof EvidenceQuery>;

const RefBody = Type.Object(
  { framework: Key('Framework key'), control_id: Key('Control id') },
  { additionalProperties: false },
);

export const AddEvidenceBody = Type.Object({
  controls: Type.Array(RefBody, { minItems: 1, maxItems: LIMITS.controlsPerItem }),
  content: Type.Unknown({ description: 'The evidence (any JSON); its SHA-256 is recorded in the ledger' }),
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  collected_at: Type.Optional(DateTime('When it was collected (default now)')),
  expires_at: Type.Optional(DateTime('When it stops counting (default collected_at + COMPLIANCE_EVIDENCE_TTL_DAYS)')),
  tenant_id: Tenant,
});
export type AddEvidenceBody = Static<typeof AddEvidenceBody>;

export const ItemParams = Type.Object({ item_id: Type.String({ format: 'uuid' }) });
export type ItemParams = Static<typeof ItemParams>;

export const ReviseEvidenceBody = Type.Object({
  content: Type.Unknown(),
  collected_at: Type.Optional(DateTime('When it was collected (default now)')),
  expires_at: Type.Optional(DateTime('When it stops counting')),
  tenant_id: Tenant,
});
export type ReviseEvidenceBody = Static<typeof ReviseEvidenceBody>;

export const ProofQuery = Type.Object({ revision: Type.Optional(Type.Integer({ minimum: 1 })), tenant_id: Tenant });
export type ProofQuery = Static<typeof ProofQuery>;

export const ProofSchema = Type.Object({
  item_id: Type.String(),
  revision: Type.Integer(),
  content_sha256: Type.String(),
  ledger: Type.Object({}, { additionalProperties: true }),
});

export const SubmitPackBody = Type.Object({
  pack: Type.Object({}, { additionalProperties: true, description: 'The mapping pack (docs/compliance.md)' }),
  tenant_id: Tenant,
});
export type SubmitPackBody = Static<typeof SubmitPackBody>;

export const PackParams = Type.Object({
  pack_id: Type.String({ minLength: 1, maxLength: 200 }),
  version: Type.String({ minLength: 1, maxLength: 64 }),
});
export type PackParams = Static<typeof PackParams>;

export const PackListQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('certified')])),
  tenant_id: Tenant,
});
export type PackListQuery = Static<typeof PackListQuery>;

export const TenantBody = Type.Object({ tenant_id: Tenant });
export type TenantBody = Static<typeof TenantBody>;

export const PackSchema = Type.Object({
  pack_id: Type.String(),
  version: Type.String(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('certified')]),
  pack: Type.Object({}, { additionalProperties: true }),
  sha256: Type.String(),
  author: Type.String(),
  submitted_at: Type.String(),
  certified_by: Type.Union([Type.String(), Type.Null()]),
  certified_at: Type.Union([Type.String(), Type.Null()]),
  signature: Type.Union([Type.String(), Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
});
export const PackList = Type.Object({ packs: Type.Array(PackSchema) });

export const KeySet = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.String(),
      crv: Type.String(),
      x: Type.String(),
      kid: Type.String(),
      use: Type.String(),
      alg: Type.String(),
    }),
  ),
});

export const EventBody = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 300, description: 'The event id: a repeat is taken once' }),
  topic: Type.String({ minLength: 1, maxLength: 200 }),
  data: Type.Object({}, { additionalProperties: true }),
});
export type EventBody = Static<typeof EventBody>;

export const IngestSchema = Type.Object({
  created: Type.Boolean(),
  item_id: Type.Union([Type.String(), Type.Null()]),
  controls: Type.Array(Ref),
});
