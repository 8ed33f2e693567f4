// Route schemas of the packs registry's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  DEFAULT_PAGE,
  MAX_PACK_ID,
  MAX_PAGE,
  MAX_VERSION,
  PACK_ID_PATTERN,
} from '../../subgraphs/packs-registry/pack.rules';
import { MAX_CURSOR_LENGTH } from '../../platform/pagination/cursor';
import { strictMembers } from '../../platform/http/validation';

/** semver.org's own pattern for a version (the domain checks it again with `semver`). */
const SEMVER =
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';

const PackId = Type.String({
  minLength: 1,
  maxLength: MAX_PACK_ID,
  pattern: PACK_ID_PATTERN.source,
  description: 'Pack id, e.g. title-transfer',
});
const Version = Type.String({
  minLength: 1,
  maxLength: MAX_VERSION,
  pattern: SEMVER,
  description: 'A semantic version, e.g. 1.2.0',
});
const TenantId = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Tenant; defaults to the caller's (another needs a platform operator)",
});
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

export const PackParams = Type.Object({ pack_id: PackId });
export type PackParams = Static<typeof PackParams>;

export const VersionParams = Type.Object({ pack_id: PackId, version: Version });
export type VersionParams = Static<typeof VersionParams>;

export const TenantQuery = Type.Object({ tenant_id: Type.Optional(TenantId) });
export type TenantQuery = Static<typeof TenantQuery>;

// A submitted pack is what reviewers certify: the submission refuses unknown members instead of
// dropping them (strictMembers; docs/decisions.md, "Unknown members").
export const SubmitBody = strictMembers(
  Type.Object(
    {
      artifact: Type.Unsafe<Record<string, unknown> | string>({
        oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }],
        description:
          'The workflow pack (platform/contracts/workflow-pack.schema.json): an object, or its JSON or YAML text (kept verbatim)',
      }),
      format: Type.Union([Type.Literal('json'), Type.Literal('yaml')], { description: 'How `artifact` is written' }),
      tenant_id: Type.Optional(TenantId),
    },
    { additionalProperties: false },
  ),
);
export type SubmitBody = Static<typeof SubmitBody>;

export const ListQuery = Type.Object({
  kind: Type.Optional(Type.Union([Type.Literal('workflow'), Type.Literal('rule'), Type.Literal('dataflow')])),
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('certified'), Type.Literal('deprecated')])),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE }),
  cursor: Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_CURSOR_LENGTH, description: 'next_cursor of the previous page' }),
  ),
  tenant_id: Type.Optional(TenantId),
});
export type ListQuery = Static<typeof ListQuery>;

export const DeprecateBody = Type.Object(
  {
    replacement_version: Type.Optional(Nullable(Version)),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false },
);
export type DeprecateBody = Static<typeof DeprecateBody>;

const Ref = Type.Object({ pack_id: Type.String(), version: Type.String() });
const Dependencies = Type.Object({
  rule_packs: Type.Array(Ref),
  schemas: Type.Array(Type.Object({ name: Type.String(), version: Type.String() })),
  workflow_packs: Type.Array(Ref),
});

const artifactMembers = {
  format: Type.Union([Type.Literal('json'), Type.Literal('yaml')]),
  sha256: { ...NullableString, description: 'SHA-256 (hex) of the RFC 8785 canonical JSON of the parsed artifact' },
  pointer: Type.Object(
    { service: Type.String(), pack_id: Type.String(), version: Type.String() },
    { description: 'Where the artifact is stored' },
  ),
};

const entryMembers = {
  pack_id: Type.String(),
  version: Type.String(),
  kind: Type.Union([Type.Literal('workflow'), Type.Literal('rule'), Type.Literal('dataflow')]),
  status: Type.Union([Type.Literal('draft'), Type.Literal('certified'), Type.Literal('deprecated')]),
  owner_tenant: Type.String(),
  author: NullableString,
  reviewers: Type.Array(Type.String()),
  submitted_at: Type.String({ description: 'ISO 8601' }),
  certified_at: NullableString,
  deprecated_at: NullableString,
  replacement: Nullable(Ref),
  dependencies: Dependencies,
};

export const EntrySummary = Type.Object({ ...entryMembers, artifact: Type.Object(artifactMembers) });

export const EntryDetail = Type.Object({
  ...entryMembers,
  artifact: Type.Object({
    ...artifactMembers,
    content: Type.Unsafe({
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'The parsed workflow pack (null for rule packs)',
    }),
    source: { ...NullableString, description: 'The artifact exactly as submitted' },
  }),
});

export const PackPage = Type.Object({ packs: Type.Array(EntrySummary), next_cursor: NullableString });
export const VersionList = Type.Object({ pack_id: Type.String(), versions: Type.Array(EntrySummary) });

export const Graph = Type.Object({
  root: Type.String(),
  nodes: Type.Array(
    Type.Object({
      id: Type.String(),
      kind: Type.Union([Type.Literal('workflow'), Type.Literal('rule'), Type.Literal('schema')]),
      name: Type.String({ description: "Pack id, or the schema's name" }),
      version: Type.String(),
      status: Type.String({ description: 'draft, review, certified, deprecated; available for a schema' }),
      source: Type.String({ description: 'catalog, rulepack-registry or schema-registry' }),
      owner_tenant: NullableString,
      replacement: Nullable(Ref),
    }),
  ),
  edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
});

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema, status = 200): Record<number, TSchema> {
  return { [status]: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail, 503: Detail };
}
