// Route schemas of the workflow triggers' REST door (TypeBox): input validation and OpenAPI.
import { Type, type Static } from '@sinclair/typebox';

export const CreateTriggerBody = Type.Object({
  workflow_pack_id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'A certified workflow pack of the packs registry whose content has a `trigger` (topic, filter)',
  }),
  workflow_pack_version: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The certified version to pin; the newest certified one when absent (pinned either way)',
    }),
  ),
  workflow_type: Type.String({ description: "legal, financial, compliance, risk or operational: the pack's type" }),
});
export type CreateTriggerBody = Static<typeof CreateTriggerBody>;

export const TriggerJson = Type.Object({
  trigger_id: Type.String(),
  workflow_pack_id: Type.String(),
  workflow_pack_version: Type.String(),
  workflow_type: Type.String(),
  topic: Type.String({ description: 'The events-backbone topic whose events (in this tenant) start the pack' }),
  filter: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: "A rule-pack condition over the event's data; null: every event of the topic",
  }),
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

export const TriggerList = Type.Object({ triggers: Type.Array(TriggerJson) });

export const TriggerParams = Type.Object({ trigger_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type TriggerParams = Static<typeof TriggerParams>;

export const TriggerDeleted = Type.Object({ trigger_id: Type.String(), deleted: Type.Boolean() });
