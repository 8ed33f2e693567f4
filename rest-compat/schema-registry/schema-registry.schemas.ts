// Route schemas of the schema registry's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_CURSOR_LENGTH } from '../../platform/pagination/cursor';
import {
  DEFAULT_PAGE,
  MAX_PAGE,
  MAX_VERSION_LENGTH,
  NAME_PATTERN,
} from '../../subgraphs/schema-registry/schema-registry.service';

const Kind = Type.Union([Type.Literal('rule-pack'), Type.Literal('workflow-pack'), Type.Literal('data')], {
  description: 'What the schema describes',
});
const Compatibility = Type.Union(
  [Type.Literal('BACKWARD'), Type.Literal('FORWARD'), Type.Literal('FULL'), Type.Literal('NONE')],
  {
    description: 'Checked against the latest version whenever a version is added (BACKWARD by default)',
  },
);
const TenantId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Tenant; defaults to the caller's (another needs a platform operator)",
});
const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const NameParams = Type.Object({ name: Type.String({ pattern: NAME_PATTERN, description: 'Schema name' }) });
export type NameParams = Static<typeof NameParams>;

export const VersionParams = Type.Object({
  name: Type.String({ pattern: NAME_PATTERN, description: 'Schema name' }),
  version: Type.String({ maxLength: MAX_VERSION_LENGTH, description: 'A semantic version, or `latest`' }),
});
export type VersionParams = Static<typeof VersionParams>;

export const TenantQuery = Type.Object({ tenant_id: Type.Optional(TenantId) });
export type TenantQuery = Static<typeof TenantQuery>;

export const ListQuery = Type.Object({
  kind: Type.Optional(Kind),
  tenant_id: Type.Optional(TenantId),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }),
  cursor: Type.Optional(Type.String({ maxLength: MAX_CURSOR_LENGTH, description: 'next_cursor of the previous page' })),
});
export type ListQuery = Static<typeof ListQuery>;

export const RegisterBody = Type.Object(
  {
    version: Type.String({
      maxLength: MAX_VERSION_LENGTH,
      description: 'Semantic version, greater than the latest one',
    }),
    schema: AnyObject('A JSON Schema draft-07 document'),
    kind: Type.Optional(Kind),
    compatibility: Type.Optional(Compatibility),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false },
);
export type RegisterBody = Static<typeof RegisterBody>;

export const CompatibilityBody = Type.Object(
  { compatibility: Compatibility, tenant_id: Type.Optional(TenantId) },
  { additionalProperties: false },
);
export type CompatibilityBody = Static<typeof CompatibilityBody>;

export const CheckBody = Type.Object(
  { schema: AnyObject('The candidate next version'), tenant_id: Type.Optional(TenantId) },
  { additionalProperties: false },
);
export type CheckBody = Static<typeof CheckBody>;

export const SchemaSummary = Type.Object({
  name: Type.String(),
  kind: Kind,
  latest_version: Type.String(),
  compatibility: Compatibility,
  owner: Type.String({ description: '`platform` for the built-in schemas every tenant reads, else the owning tenant' }),
});

export const SchemaVersionView = Type.Object({
  name: Type.String(),
  kind: Kind,
  version: Type.String(),
  schema: AnyObject('The registered JSON Schema'),
  compatibility: Compatibility,
  owner: Type.String(),
  fingerprint: Type.String({ description: "SHA-256 of the schema's RFC 8785 canonical JSON" }),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Union([Type.String(), Type.Null()]),
});

export const SchemaPage = Type.Object({
  schemas: Type.Array(SchemaSummary),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export const VersionList = Type.Object({
  name: Type.String(),
  versions: Type.Array(Type.String(), { description: 'Oldest first' }),
});
export const CheckResult = Type.Object({
  compatible: Type.Boolean(),
  reasons: Type.Array(Type.String(), { description: 'Each names the JSON pointer it concerns' }),
});

const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema, okStatus = 200, extra: Record<number, TSchema> = {}): Record<number, TSchema> {
  return { [okStatus]: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail, 503: Detail, ...extra };
}
