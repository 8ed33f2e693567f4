// The mapping pack (docs/compliance.md, "Mapping packs"): which controls an event type (and,
// for validation runs, which rule packs) is evidence for. Submitted as a draft, certified by a
// second person of the tenant, then signed as rule packs are (Ed25519 over the RFC 8785
// canonical JSON). One definition for the compliance service and any tool that writes packs.
import { Type, type Static } from '@sinclair/typebox';
import { PackId, SemVer } from './contract.types';

const Key = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });

export const MappingPackSchema = Type.Object(
  {
    metadata: Type.Object(
      {
        pack_id: PackId,
        version: SemVer,
        name: Type.String({ minLength: 1, maxLength: 200 }),
        description: Type.Optional(Type.String({ maxLength: 2000 })),
      },
      { additionalProperties: false },
    ),
    mappings: Type.Array(
      Type.Object(
        {
          /** A compliance topic (`compliance.rule_execution`), its ledger type (`rule_execution`, `workflow_execution`) or a workflow transition (`workflow.failed`). */
          event_type: Type.String({ minLength: 1, maxLength: 200, pattern: '^[a-z][a-z0-9_.-]*$' }),
          /** Only validation runs of these rule packs (absent: any). */
          rule_pack_ids: Type.Optional(Type.Array(PackId, { minItems: 1, maxItems: 100 })),
          controls: Type.Array(Type.Object({ framework: Key, control_id: Key }, { additionalProperties: false }), {
            minItems: 1,
            maxItems: 100,
          }),
          /** How long evidence from this rule stays in force (default COMPLIANCE_EVIDENCE_TTL_DAYS). */
          evidence_ttl_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false, $id: 'compliance.mapping_pack.v1' },
);
export type MappingPackDocument = Static<typeof MappingPackSchema>;
