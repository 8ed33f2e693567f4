// Route schemas of the validation service's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_ID_LENGTH, MAX_VALIDATION_TYPE_LENGTH } from '../../subgraphs/validation/validation.service';

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const ValidateBody = Type.Object({
  rule_pack_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
      description: 'A certified pack of the rule-pack registry (exactly one of rule_pack_id and rule_pack)',
    }),
  ),
  rule_pack_version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_ID_LENGTH,
      description: 'The registry version to run; the newest certified one when absent',
    }),
  ),
  rule_pack: Type.Optional(
    AnyObject('An inline rule pack (platform/contracts/rule-pack.schema.json), run on this payload only'),
  ),
  payload: Type.Unknown({
    description: 'JSON: an object (one record) or an array of records; CSV and XML: the document as a string',
  }),
  payload_format: Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('xml')], { default: 'json' }),
  validation_type: Type.String({ minLength: 1, maxLength: MAX_VALIDATION_TYPE_LENGTH, default: 'standard' }),
  strict_mode: Type.Boolean({ default: false, description: 'Warnings fail the run too' }),
  metadata: Type.Optional(AnyObject('Context of the run; neither stored nor echoed')),
});
export type ValidateBody = Static<typeof ValidateBody>;

const Entry = AnyObject(
  'rule_id, severity (FATAL, WARNING, INFO), field, message (PII redacted), and row for multi-record input',
);

export const ValidateResponse = Type.Object({
  result: Type.Object(
    {
      valid: Type.Boolean(),
      errors: Type.Array(Entry),
      warnings: Type.Array(Entry),
      rule_results: AnyObject('Per rule outcome, by rule_id'),
      metadata: AnyObject('Records, rules and severities counted by the engine'),
    },
    { additionalProperties: true },
  ),
  correlation_id: Type.String(),
  execution_time_ms: Type.Number(),
  rule_pack_version: Type.Union([Type.String(), Type.Null()], {
    description: "The pack's metadata.version; null for an inline pack without one",
  }),
  rule_pack_id: Type.String({
    description: "The registry pack id; an inline pack's metadata.pack_id, or inline:<pack_sha256>",
  }),
  pack_source: Type.Union([Type.Literal('registry'), Type.Literal('inline')]),
  pack_sha256: Type.String({ description: 'SHA-256 of the RFC 8785 canonical JSON of the pack' }),
  input_sha256: Type.String({ description: 'SHA-256 of the input: canonical JSON, or the CSV/XML text as sent' }),
});

export const SchemasQuery = Type.Object({
  kind: Type.Optional(Type.Union([Type.Literal('rule-pack'), Type.Literal('workflow-pack'), Type.Literal('data')])),
});
export type SchemasQuery = Static<typeof SchemasQuery>;

export const SchemasResponse = Type.Object({
  schemas: Type.Array(
    Type.Object(
      {
        name: Type.String(),
        kind: Type.String(),
        latest_version: Type.String(),
        compatibility: Type.String(),
        owner: Type.String(),
      },
      { additionalProperties: true },
    ),
  ),
});

export const SchemaParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });
export type SchemaParams = Static<typeof SchemaParams>;
export const SchemaVersionQuery = Type.Object({
  version: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'A semver version; the latest when absent' }),
  ),
});
export type SchemaVersionQuery = Static<typeof SchemaVersionQuery>;

export const SchemaVersionResponse = Type.Object(
  {
    name: Type.String(),
    kind: Type.String(),
    version: Type.String(),
    schema: Type.Object({}, { additionalProperties: true }),
    compatibility: Type.String(),
    owner: Type.String(),
    created_at: Type.String(),
    created_by: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true },
);

export const ServiceInfo = Type.Object({
  service: Type.String(),
  version: Type.String(),
  description: Type.String(),
  endpoints: Type.Array(Type.String()),
});

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 413: Detail, 422: Detail, 503: Detail };
}
