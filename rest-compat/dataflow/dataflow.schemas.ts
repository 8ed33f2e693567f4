// Route schemas of DataFlow's REST door (TypeBox): input validation (FastAPI's 422) and OpenAPI.
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const TenantId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Tenant; defaults to the caller's (another needs a platform operator)",
});
const Detail = Type.Object({ detail: Type.Unknown() });
const Json = (description: string) => Type.Unknown({ description });

export function responses(ok: TSchema, okStatus = 200, extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return { [okStatus]: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail, 503: Detail, ...extra };
}

export const TenantQuery = Type.Object({ tenant_id: Type.Optional(TenantId) });
export type TenantQuery = Static<typeof TenantQuery>;

export const RunBody = Type.Object(
  {
    pack_id: Type.String({ minLength: 1, maxLength: 128 }),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tenant_id: Type.Optional(TenantId),
    /** `workflow_step`: a workflow's `dataflow` step (the pack must declare that trigger; the key is required). */
    trigger: Type.Optional(Type.Union([Type.Literal('on_demand'), Type.Literal('workflow_step')])),
  },
  { additionalProperties: false },
);
export type RunBody = Static<typeof RunBody>;

export const StageParams = Type.Object({ dataset: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$' }) });
export type StageParams = Static<typeof StageParams>;

export const StageBody = Type.Object(
  {
    records: Type.Array(
      Type.Object(
        {
          key: Type.String({ minLength: 1, maxLength: 500 }),
          data: Type.Object({}, { additionalProperties: true }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10_000 },
    ),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false },
);
export type StageBody = Static<typeof StageBody>;

export const Staged = Type.Object({ dataset: Type.String(), staged: Type.Integer() });

export const RunParams = Type.Object({ run_id: Type.String({ minLength: 1, maxLength: 64 }) });
export type RunParams = Static<typeof RunParams>;

export const RunListQuery = Type.Object({
  pack_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  tenant_id: Type.Optional(TenantId),
});
export type RunListQuery = Static<typeof RunListQuery>;

export const BreakQuery = Type.Object({
  category: Type.Optional(
    Type.Union([Type.Literal('unmatched_left'), Type.Literal('unmatched_right'), Type.Literal('break')]),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  cursor: Type.Optional(Type.String({ maxLength: 20 })),
  tenant_id: Type.Optional(TenantId),
});
export type BreakQuery = Static<typeof BreakQuery>;

export const Run = Type.Object({
  run_id: Type.String(),
  tenant_id: Type.String(),
  pack_id: Type.String(),
  pack_version: Type.String(),
  trigger_kind: Type.String(),
  trigger_key: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('passed'), Type.Literal('failed'), Type.Literal('error')]),
  error: Type.Union([Type.String(), Type.Null()]),
  result: Json('Transforms, reconciliations (counts, totals, masked samples) and the evidence hash'),
  requested_by: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
});

export const RunList = Type.Object({ runs: Type.Array(Run) });

export const BreakPage = Type.Object({
  breaks: Type.Array(
    Type.Object({
      reconciliation: Type.String(),
      category: Type.String(),
      key: Type.String(),
      detail: Json('Failed rules and the records, PII masked'),
    }),
  ),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const Evidence = Type.Object({
  run_id: Type.String(),
  sha256: Type.String(),
  content: Json('What ran, on which inputs (ingestion manifests, lineage), with which results'),
  created_at: Type.String(),
});
