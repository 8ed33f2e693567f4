// Route schemas of the registry's REST door (TypeBox): one source for input validation (FastAPI's
// 422 body through the kernel's validator) and for the OpenAPI document. The pack inside a body
// is checked by the domain (contract schema, metadata, engine), which names paths inside it.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  MAX_NOTES,
  MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
} from '../../subgraphs/rulepack-registry/rulepack-registry.service';
import { MAX_CURSOR_LENGTH } from '../../platform/pagination/cursor';
import { RULEPACK_STATUSES } from '../../subgraphs/rulepack-registry/rulepack-registry.types';
import { strictMembers } from '../../platform/http/validation';

const NullableString = (options: { maxLength?: number; description?: string } = {}) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
const Status = Type.Unsafe<(typeof RULEPACK_STATUSES)[number]>({ type: 'string', enum: [...RULEPACK_STATUSES] });
const Timestamp = Type.String({ description: 'ISO 8601, UTC' });
const NullableTimestamp = NullableString({ description: 'ISO 8601, UTC' });

// A submitted pack is what reviewers certify: the submission refuses unknown members instead of
// dropping them (strictMembers; docs/decisions.md, "Unknown members").
export const SubmitBody = strictMembers(
  Type.Object(
    {
      pack: Type.Optional(
        Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The rule pack (platform/contracts/rule-pack.schema.json); metadata.pack_id and metadata.version (semver) required',
          },
        ),
      ),
      artifact: Type.Optional(Type.String({ description: 'The rule pack as YAML or JSON text (instead of pack)' })),
      format: Type.Optional(
        Type.Unsafe<'yaml' | 'json'>({ type: 'string', enum: ['yaml', 'json'], description: 'Format of artifact' }),
      ),
    },
    { additionalProperties: false },
  ),
);
export type SubmitBody = Static<typeof SubmitBody>;

export const PackParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export type PackParams = Static<typeof PackParams>;
export const VersionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  version: Type.String({ minLength: 1, maxLength: 64 }),
});
export type VersionParams = Static<typeof VersionParams>;

export const CertifyBody = Type.Object(
  { notes: Type.Optional(NullableString({ maxLength: MAX_NOTES })) },
  { additionalProperties: false },
);
export type CertifyBody = Static<typeof CertifyBody>;
export const RejectBody = Type.Object(
  { notes: Type.String({ minLength: 1, maxLength: MAX_NOTES, description: 'Why: what the author should change' }) },
  { additionalProperties: false },
);
export type RejectBody = Static<typeof RejectBody>;

const PackRef = Type.Object(
  { pack_id: Type.String({ minLength: 1, maxLength: 200 }), version: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const DeprecateBody = Type.Object(
  {
    replacement_version: Type.Optional(
      NullableString({ maxLength: 64, description: 'A certified version of the same pack to use instead' }),
    ),
    replacement: Type.Optional(
      Type.Union([PackRef, Type.Null()], { description: 'Or a certified version of any pack' }),
    ),
    notes: Type.Optional(NullableString({ maxLength: MAX_NOTES })),
  },
  { additionalProperties: false },
);
export type DeprecateBody = Static<typeof DeprecateBody>;

export const ListQuery = Type.Object({
  status: Type.Optional(Status),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  cursor: Type.Optional(Type.String({ maxLength: MAX_CURSOR_LENGTH, description: 'next_cursor of the previous page' })),
});
export type ListQuery = Static<typeof ListQuery>;

const summaryFields = {
  pack_id: Type.String(),
  version: Type.String(),
  status: Status,
  sha256: Type.String({ minLength: 64, maxLength: 64 }),
  owner_tenant: Type.String(),
  author: Type.String(),
  reviewers: Type.Array(Type.String()),
  submitted_at: Timestamp,
  certified_at: NullableTimestamp,
  signature: NullableString({ description: 'Ed25519 over the canonical JSON bytes of pack, base64url' }),
  key_id: NullableString({ description: 'kid of the signing key in /.well-known/rulepack-keys.json' }),
  deprecated_at: NullableTimestamp,
  replacement: Type.Union([PackRef, Type.Null()]),
};

/** The client's RulePackVersionView (platform/clients/rulepack-registry.client.ts). */
export const VersionView = Type.Object({ ...summaryFields, pack: Type.Object({}, { additionalProperties: true }) });
/** Listings leave the pack out (a pack may hold 1,000 rules). */
export const VersionSummary = Type.Object(summaryFields);

export const ListResponse = Type.Object({ rulepacks: Type.Array(VersionSummary), next_cursor: NullableString() });
export const VersionsResponse = Type.Object({ pack_id: Type.String(), versions: Type.Array(VersionSummary) });

export const DecisionsResponse = Type.Object({
  decisions: Type.Array(
    Type.Object({
      decision: Type.String(),
      actor: Type.String(),
      from_state: NullableString(),
      to_state: Type.String(),
      notes: NullableString(),
      created_at: Timestamp,
    }),
  ),
});

export const KeySet = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.Literal('OKP'),
      crv: Type.Literal('Ed25519'),
      x: Type.String(),
      kid: Type.String(),
      use: Type.Literal('sig'),
      alg: Type.Literal('EdDSA'),
    }),
  ),
});

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema, status = 200): Record<number, TSchema> {
  return { [status]: ok, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail, 503: Detail };
}
