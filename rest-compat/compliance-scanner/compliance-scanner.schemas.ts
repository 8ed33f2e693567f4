// Route schemas of the scanner's REST door (TypeBox): one source for input validation (FastAPI's
// 422 body through the kernel's validator) and for the OpenAPI document. Wire names are snake_case.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { SCANNER_SEVERITIES } from '../../platform/contracts/scanner-pack.schema';

const Detail = Type.Object({ detail: Type.Unknown() });
const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'At most this many (200)' }));

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 413: Detail, 422: Detail, 503: Detail };
}

export const TenantQuery = Type.Object({ tenant_id: Tenant });
export type TenantQuery = Static<typeof TenantQuery>;
export const TenantBody = Type.Object({ tenant_id: Tenant });
export type TenantBody = Static<typeof TenantBody>;

// ---- packs
export const SubmitPackBody = Type.Object({
  pack: Type.Object(
    {},
    { additionalProperties: true, description: 'The scanner pack (platform/contracts/scanner-pack.schema.ts)' },
  ),
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

export const PackSchema = Type.Object({
  pack_id: Type.String(),
  version: Type.String(),
  status: Type.String(),
  pack: Type.Object({}, { additionalProperties: true }),
  sha256: Type.String(),
  author: Type.String(),
  submitted_at: Type.String(),
  certified_by: Nullable(Type.String()),
  certified_at: Nullable(Type.String()),
  signature: Nullable(Type.String()),
  key_id: Nullable(Type.String()),
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

// ---- targets
export const CreateTargetBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._ -]*$' }),
  kind: Type.Union(
    [Type.Literal('repository'), Type.Literal('configuration'), Type.Literal('config'), Type.Literal('data_asset')],
    {
      description:
        "repository (a path, or an https URL under SCANNER_ALLOWED_REMOTES, cloned at each scan), configuration (settings, or the platform's), config (the tenant's configuration at the config service), data_asset (path `ingestion:batch/<batch id>`, `retrieval:documents` or `retrieval:document/<document id>`: the records or documents sampled for unmasked PII and, with retention rules, checked against the tenant's retention policies)",
    },
  ),
  namespace: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'config: the config-service namespace to scan; absent, every namespace in force',
    }),
  ),
  path: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description:
        'repository: an absolute directory inside SCANNER_ALLOWED_ROOTS, or an https URL under SCANNER_ALLOWED_REMOTES (`#<branch or tag>` chooses the ref); data_asset: ingestion:batch/<batch id>, retrieval:documents or retrieval:document/<document id>',
    }),
  ),
  settings: Type.Optional(
    Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$', maxLength: 200 }), Type.String({ maxLength: 4096 }), {
      maxProperties: 2000,
      description:
        "configuration: a profile's settings (secrets are kept as their length only); absent, the platform's effective settings",
    }),
  ),
  tenant_id: Tenant,
});
export type CreateTargetBody = Static<typeof CreateTargetBody>;

export const IdParams = Type.Object({ id: Id('Id') });
export type IdParams = Static<typeof IdParams>;

export const TargetSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  path: Nullable(Type.String()),
  settings: Nullable(Type.Record(Type.String(), Type.String())),
  namespace: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Type.String(),
});
export const TargetList = Type.Object({ targets: Type.Array(TargetSchema) });

// ---- scans and findings
export const RunScanBody = Type.Object({
  target_id: Id('Target id'),
  pack_id: Type.String({ minLength: 1, maxLength: 200 }),
  pack_version: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Absent: the newest certified version' }),
  ),
  tenant_id: Tenant,
  background: Type.Optional(
    Type.Boolean({
      description: 'true: answer the running scan at once (202) and finish it in the background (scannerScanProgress)',
    }),
  ),
});
export type RunScanBody = Static<typeof RunScanBody>;

const SummarySchema = Type.Object({
  matches: Type.Integer(),
  opened: Type.Integer(),
  reopened: Type.Integer(),
  fixed: Type.Integer(),
  suppressed: Type.Integer(),
  rule_errors: Type.Array(Type.Object({ rule_id: Type.String(), path: Type.String(), message: Type.String() })),
  skipped_files: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
  ignored_inline_skips: Type.Array(
    Type.Object({
      rule_id: Type.String(),
      path: Type.String(),
      line: Nullable(Type.Integer()),
      fingerprint: Type.String(),
    }),
  ),
});

export const ScanSchema = Type.Object({
  id: Type.String(),
  target_id: Type.String(),
  pack_id: Type.String(),
  pack_version: Type.String(),
  status: Type.String(),
  requested_by: Type.String(),
  trigger: Type.String({ description: 'manual, schedule, config.changed or ingestion.completed' }),
  schedule_id: Nullable(Type.String()),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
  files_scanned: Type.Integer(),
  summary: Nullable(SummarySchema),
  error: Nullable(Type.String()),
});
export const ScanList = Type.Object({ scans: Type.Array(ScanSchema) });
export const ScanListQuery = Type.Object({
  target_id: Type.Optional(Id('Target id')),
  limit: Limit,
  tenant_id: Tenant,
});
export type ScanListQuery = Static<typeof ScanListQuery>;

export const Sbom = Type.Object(
  { bomFormat: Type.Literal('CycloneDX'), specVersion: Type.String() },
  { additionalProperties: true, description: 'A CycloneDX 1.5 SBOM (JSON)' },
);

// ---- schedules
export const CreateScheduleBody = Type.Object({
  target_id: Id('Target id'),
  pack_id: Type.String({ minLength: 1, maxLength: 200, description: 'Its newest certified version runs' }),
  every_seconds: Type.Optional(
    Type.Integer({ description: 'Run this often (at least SCANNER_SCHEDULE_MIN_SECONDS, 300)' }),
  ),
  on_events: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 2,
      description: "Also run when these arrive for the tenant: 'config.changed', 'ingestion.completed'",
    }),
  ),
  tenant_id: Tenant,
});
export type CreateScheduleBody = Static<typeof CreateScheduleBody>;

export const ScheduleSchema = Type.Object({
  id: Type.String(),
  target_id: Type.String(),
  pack_id: Type.String(),
  every_seconds: Nullable(Type.Integer()),
  on_events: Type.Array(Type.String()),
  due_at: Nullable(Type.String()),
  due_trigger: Nullable(Type.String()),
  last_run_at: Nullable(Type.String()),
  last_scan_id: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: Type.String(),
});
export const ScheduleList = Type.Object({ schedules: Type.Array(ScheduleSchema) });

export const Sarif = Type.Object(
  { version: Type.Literal('2.1.0') },
  { additionalProperties: true, description: 'A SARIF 2.1.0 log' },
);

const Status = Type.Union([
  Type.Literal('open'),
  Type.Literal('fixed'),
  Type.Literal('suppressed'),
  Type.Literal('reopened'),
]);
export const FindingQuery = Type.Object({
  target_id: Type.Optional(Id('Target id')),
  scan_id: Type.Optional(Id('Scan id: the findings it saw last')),
  status: Type.Optional(Status),
  limit: Limit,
  tenant_id: Tenant,
});
export type FindingQuery = Static<typeof FindingQuery>;

export const FindingSchema = Type.Object({
  id: Type.String(),
  target_id: Type.String(),
  fingerprint: Type.String(),
  rule_id: Type.String(),
  pack_id: Type.String(),
  pack_version: Type.String(),
  severity: Type.Union(SCANNER_SEVERITIES.map((s) => Type.Literal(s))),
  status: Status,
  path: Type.String(),
  line: Nullable(Type.Integer()),
  detail: Nullable(Type.String()),
  controls: Type.Array(Type.String()),
  inline_skip: Type.Boolean(),
  suppression_id: Nullable(Type.String()),
  first_seen: Type.String(),
  last_seen: Type.String(),
  last_scan_id: Type.String(),
});
export const FindingList = Type.Object({ findings: Type.Array(FindingSchema) });

// ---- suppressions
export const SuppressionBody = Type.Object({
  scope: Type.Union([Type.Literal('fingerprint'), Type.Literal('rule_path'), Type.Literal('purl')]),
  fingerprint: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  rule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  path_glob: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  purl: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  owner: Type.String({ minLength: 1, maxLength: 255 }),
  justification: Type.String({ minLength: 1, maxLength: 4000 }),
  expires_at: Type.String({
    format: 'date-time',
    description: 'Mandatory; at most SCANNER_SUPPRESSION_MAX_DAYS ahead',
  }),
  tenant_id: Tenant,
});
export type SuppressionBody = Static<typeof SuppressionBody>;

export const SuppressionQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('expired')]),
  ),
  limit: Limit,
  tenant_id: Tenant,
});
export type SuppressionQuery = Static<typeof SuppressionQuery>;

export const SuppressionSchema = Type.Object({
  id: Type.String(),
  scope: Type.String(),
  fingerprint: Nullable(Type.String()),
  rule_id: Nullable(Type.String()),
  path_glob: Nullable(Type.String()),
  purl: Nullable(Type.String()),
  owner: Type.String(),
  justification: Type.String(),
  expires_at: Type.String(),
  status: Type.String(),
  requested_by: Type.String(),
  approver: Nullable(Type.String()),
  workflow_id: Nullable(Type.String()),
  created_at: Type.String(),
  decided_at: Nullable(Type.String()),
});
export const SuppressionList = Type.Object({ suppressions: Type.Array(SuppressionSchema) });
