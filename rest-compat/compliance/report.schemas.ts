// Route schemas of the compliance reports' REST routes (TypeBox, snake_case wire names): one
// source for input validation (FastAPI's 422 body) and the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { REPORT_LIMITS } from '../../subgraphs/compliance/report.types';

const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Uuid = (description: string) => Type.String({ format: 'uuid', description });

export const ReportParams = Type.Object({ report_id: Uuid('The report id') });
export type ReportParams = Static<typeof ReportParams>;

export const GenerateBody = Type.Object({
  framework: Type.String({ minLength: 1, maxLength: 100, description: "The framework's key in the tenant" }),
  period: Type.Union(
    [
      Type.String({ maxLength: 20, description: "A quarter, e.g. '2026-Q3' (UTC)" }),
      Type.Object(
        {
          start: Type.String({ maxLength: 40, description: 'ISO 8601, inclusive' }),
          end: Type.String({ maxLength: 40, description: 'ISO 8601, exclusive' }),
        },
        { additionalProperties: false },
      ),
    ],
    { description: "A quarter ('2026-Q3') or {start, end}" },
  ),
  report_type: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "Free label, default 'periodic'" }),
  ),
  tenant_id: Tenant,
});
export type GenerateBody = Static<typeof GenerateBody>;

export const ReportListQuery = Type.Object({
  framework: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  status: Type.Optional(
    Type.Union(
      ['generated', 'pending_review', 'signing', 'signed_off', 'rejected'].map((s) => Type.Literal(s)),
      { description: 'Only reports in this status' },
    ),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  tenant_id: Tenant,
});
export type ReportListQuery = Static<typeof ReportListQuery>;

export const ReportTenantQuery = Type.Object({ tenant_id: Tenant });
export type ReportTenantQuery = Static<typeof ReportTenantQuery>;

export const ReportEvidenceQuery = Type.Object({
  control_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: REPORT_LIMITS.maxPageSize,
      description: `At most ${REPORT_LIMITS.maxProofPageSize} with proofs`,
    }),
  ),
  cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  proofs: Type.Optional(Type.Boolean({ description: "Each item's inclusion proof against the report's checkpoint" })),
  tenant_id: Tenant,
});
export type ReportEvidenceQuery = Static<typeof ReportEvidenceQuery>;

export const SubmitBody = Type.Union([Type.Object({ tenant_id: Tenant }), Type.Null()]);
export type SubmitBody = Static<typeof SubmitBody>;

export const SignOffBody = Type.Object({
  decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
  notes: Type.Optional(Type.String({ maxLength: REPORT_LIMITS.notesLength })),
  tenant_id: Tenant,
});
export type SignOffBody = Static<typeof SignOffBody>;

const Summary = Type.Object({
  controls: Type.Integer(),
  satisfied: Type.Integer(),
  not_satisfied: Type.Integer(),
  fresh: Type.Integer(),
  expiring: Type.Integer(),
  stale: Type.Integer(),
  evidence_items: Type.Integer(),
  evidence_links: Type.Integer(),
  unrecorded: Type.Integer(),
});

const Checkpoint = Type.Object({
  format: Type.String(),
  id: Type.String(),
  tenant_id: Type.String(),
  tree_size: Type.Integer(),
  root_hash: Type.String(),
  timestamp: Type.String(),
  key_id: Type.String(),
  signature: Type.String(),
});

export const ReportSchema = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  framework: Type.String(),
  report_type: Type.String(),
  period: Type.Object({ start: Type.String(), end: Type.String(), label: Type.String() }),
  status: Type.String(),
  result: Nullable(Type.String()),
  summary: Summary,
  checkpoint: Type.Union([Checkpoint, Type.Null()]),
  content_sha256: Nullable(Type.String()),
  generated_by: Nullable(Type.String()),
  generated_at: Type.String(),
  submitted_by: Nullable(Type.String()),
  submitted_at: Nullable(Type.String()),
  reviewed_by: Nullable(Type.String()),
  reviewed_at: Nullable(Type.String()),
  review_notes: Nullable(Type.String()),
  ledger_entry_id: Nullable(Type.String()),
  ledger_chain_hash: Nullable(Type.String()),
  workflow_id: Nullable(Type.String({ description: 'The sign-off workflow execution (workflow service)' })),
  approval_task_id: Nullable(
    Type.String({
      description: "The sign-off's approval task: decide it at POST /approve/{id} of the workflow service",
    }),
  ),
});

const ReportControl = Type.Object({
  control_id: Type.String(),
  title: Type.String(),
  freshness: Type.String(),
  satisfied: Type.Boolean(),
  evidence_count: Type.Integer(),
  last_collected_at: Nullable(Type.String()),
  expires_at: Nullable(Type.String()),
});

export const ReportWithControls = Type.Intersect([ReportSchema, Type.Object({ controls: Type.Array(ReportControl) })]);
export const ReportList = Type.Object({ reports: Type.Array(ReportSchema), next_cursor: Nullable(Type.String()) });

export const ReportEvidencePage = Type.Object({
  items: Type.Array(
    Type.Object({
      control_id: Type.String(),
      item_id: Type.String(),
      revision: Type.Integer(),
      content_sha256: Type.String(),
      source: Type.String(),
      collected_at: Type.String(),
      expires_at: Type.String(),
      ledger_entry_id: Nullable(Type.String()),
      proof: Type.Optional(Type.Unknown()),
    }),
  ),
  next_cursor: Nullable(Type.String()),
});
