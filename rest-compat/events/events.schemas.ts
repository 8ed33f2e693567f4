// Route schemas of the events service's REST door (TypeBox): one source for input validation
// (FastAPI's 422 body through the kernel's validator) and for the OpenAPI document. Wire names
// are snake_case; a CloudEvent leaves in its structured JSON form (cloudEventJson).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { MAX_NAME, MAX_PAGE, MAX_PULL } from '../../platform/events/backbone/backbone.types';

const Name = (description: string) => Type.String({ minLength: 1, maxLength: MAX_NAME, description });
const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);
const Position = (description: string) => Type.Integer({ minimum: 0, maximum: 2 ** 52, description });
const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return {
    200: ok,
    401: Detail,
    403: Detail,
    404: Detail,
    409: Detail,
    413: Detail,
    422: Detail,
    429: Detail,
    503: Detail,
  };
}

export const TenantQuery = Type.Object({ tenant_id: Tenant });
export type TenantQuery = Static<typeof TenantQuery>;

export const NameParams = Type.Object({ name: Name('Topic or subscription name') });
export type NameParams = Static<typeof NameParams>;

export const DeadLetterParams = Type.Object({
  name: Name('Subscription name'),
  position: Position('The dead letter’s position in its topic stream'),
});
export type DeadLetterParams = Static<typeof DeadLetterParams>;

export const TopicSchema = Type.Object({
  name: Type.String(),
  version: Type.Integer(),
  schema: Type.Object({}, { additionalProperties: true }),
  description: Type.String(),
  platform: Type.Boolean(),
});

export const TopicList = Type.Object({ topics: Type.Array(TopicSchema) });

export const RegisterTopicBody = Type.Object({
  name: Name('Topic name: lower-case letters, digits, ".", "_" and "-"'),
  schema: Type.Object({}, { additionalProperties: true, description: "The payload's JSON Schema (draft-07)" }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  tenant_id: Tenant,
});
export type RegisterTopicBody = Static<typeof RegisterTopicBody>;

export const CloudEventSchema = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String(),
    source: Type.String(),
    type: Type.String(),
    time: Type.String(),
    subject: Type.Optional(Type.String()),
    datacontenttype: Type.String(),
    tenantid: Type.String({ description: 'CloudEvents extension: the tenant whose stream holds the event' }),
    traceparent: Type.Optional(Type.String()),
    topic: Type.String(),
    position: Type.Integer({ description: 'Monotonic within (tenant, topic), from 1' }),
    data: Type.Unknown(),
  },
  { description: 'A CloudEvents 1.0 event in structured JSON form' },
);

export const PublishBody = Type.Object({
  topic: Name('The topic; its JSON Schema checks data'),
  data: Type.Unknown({ description: 'The payload' }),
  id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'CloudEvents id; a retry with it is stored once' }),
  ),
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Order is kept per subject' })),
  time: Type.Optional(Type.String({ format: 'date-time' })),
  traceparent: Type.Optional(Type.String({ maxLength: 64 })),
  tenant_id: Tenant,
});
export type PublishBody = Static<typeof PublishBody>;

export const PublishResponse = Type.Object({ event: CloudEventSchema, duplicate: Type.Boolean() });

export const EventsQuery = Type.Object({
  after_position: Type.Optional(Position('Events after this position (default 0)')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
  tenant_id: Tenant,
});
export type EventsQuery = Static<typeof EventsQuery>;

export const EventList = Type.Object({ events: Type.Array(CloudEventSchema) });

export const SubscriptionSchema = Type.Object({
  name: Type.String(),
  topic: Type.String(),
  position: Type.Integer(),
  max_deliveries: Type.Integer(),
  ack_timeout_ms: Type.Integer(),
  backoff_ms: Type.Integer(),
});

export const DeletedResponse = Type.Object({ deleted: Type.Boolean() });

export const SubscriptionList = Type.Object({ subscriptions: Type.Array(SubscriptionSchema) });

export const CreateSubscriptionBody = Type.Object({
  name: Name('The consumer group: every consumer pulling under it shares its position'),
  topic: Name('The topic'),
  from_position: Type.Optional(Position('Deliver events after it (0: all); default: from now on')),
  max_deliveries: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  ack_timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
  backoff_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  tenant_id: Tenant,
});
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const PullBody = Type.Object({
  max: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PULL, description: 'Messages at most (default 10)' })),
  tenant_id: Tenant,
});
export type PullBody = Static<typeof PullBody>;

export const MessageList = Type.Object({
  messages: Type.Array(Type.Object({ lease_id: Type.String(), attempt: Type.Integer(), event: CloudEventSchema })),
});

export const AckBody = Type.Object({
  lease_ids: Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: 1000 }),
  tenant_id: Tenant,
});
export type AckBody = Static<typeof AckBody>;

export const AckResponse = Type.Object({ acked: Type.Array(Type.String()) });

export const NackBody = Type.Object({
  lease_id: Type.String({ format: 'uuid' }),
  error: Type.Optional(Type.String({ maxLength: 2000 })),
  tenant_id: Tenant,
});
export type NackBody = Static<typeof NackBody>;

export const NackResponse = Type.Object({ state: Type.Union([Type.Literal('ready'), Type.Literal('dead')]) });

export const ReplayBody = Type.Object({
  after_position: Type.Optional(Position('Deliver again the events after this position')),
  time: Type.Optional(
    Type.String({ format: 'date-time', description: 'Deliver again from the first event at or after it' }),
  ),
  tenant_id: Tenant,
});
export type ReplayBody = Static<typeof ReplayBody>;

export const ReplayResponse = Type.Object({ position: Type.Integer() });

export const DeadLetterSchema = Type.Object({
  subscription: Type.String(),
  position: Type.Integer(),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  dead_at: Type.String(),
  event: CloudEventSchema,
});

export const DeadLetterList = Type.Object({ dead_letters: Type.Array(DeadLetterSchema) });

export const RedriveBody = Type.Object({
  positions: Type.Optional(Type.Array(Position('A dead letter’s position'), { minItems: 1, maxItems: 1000 })),
  tenant_id: Tenant,
});
export type RedriveBody = Static<typeof RedriveBody>;

export const RedriveResponse = Type.Object({ redriven: Type.Array(Type.Integer()) });
