// Route schemas of the webhook routes (TypeBox): input validation (FastAPI's 422 through the
// kernel's validator) and the OpenAPI document. Wire names are snake_case. The ranges a value
// must be in (timeout, concurrency, overlap) are the domain's (endpoint.service.ts), checked once
// there, so REST and GraphQL refuse the same things with the same messages.
import { Type, type Static } from '@sinclair/typebox';

const Tenant = Type.Optional(
  Type.String({ minLength: 1, maxLength: 255, description: "Tenant; defaults to the caller's" }),
);

export const EndpointParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The endpoint id (a UUID)' }),
});
export type EndpointParams = Static<typeof EndpointParams>;

export const EventParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The endpoint id (a UUID)' }),
  event_id: Type.String({ minLength: 1, maxLength: 255, description: 'The event id (CloudEvents id, webhook-id)' }),
});
export type EventParams = Static<typeof EventParams>;

export const TenantParams = Type.Object({
  tenant: Type.String({ minLength: 1, maxLength: 255, description: 'The tenant whose keys are asked for' }),
});
export type TenantParams = Static<typeof TenantParams>;

export const WebhookTenantQuery = Type.Object({ tenant_id: Tenant });
export type WebhookTenantQuery = Static<typeof WebhookTenantQuery>;

export const LogQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Newest first; default 100' })),
  tenant_id: Tenant,
});
export type LogQuery = Static<typeof LogQuery>;

const Topics = Type.Array(Type.String({ maxLength: 255 }), {
  maxItems: 100,
  description: 'Event types (topics) delivered: exact names or prefixes ending in *; empty = all of the tenant',
});
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);
const TimeoutMs = Type.Integer({ description: 'Per-attempt timeout, 100 to 120000 ms' });
const MaxConcurrency = Type.Integer({ description: 'Deliveries in flight to this endpoint at once, 1 to 100' });

export const CreateEndpointBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'http(s) URL; its host must resolve to public addresses (the SSRF guard)',
  }),
  description: Type.Optional(Description),
  topics: Type.Optional(Topics),
  enabled: Type.Optional(Type.Boolean()),
  timeout_ms: Type.Optional(TimeoutMs),
  max_concurrency: Type.Optional(MaxConcurrency),
  tenant_id: Tenant,
});
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  description: Type.Optional(Description),
  topics: Type.Optional(Topics),
  enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint a 410 disabled' })),
  timeout_ms: Type.Optional(TimeoutMs),
  max_concurrency: Type.Optional(MaxConcurrency),
  tenant_id: Tenant,
});
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const RotateBody = Type.Object({
  overlap_seconds: Type.Optional(
    Type.Integer({
      description:
        'How long the previous secret (or key) keeps signing beside the new one; default 86400, 0 to 2592000',
    }),
  ),
  tenant_id: Tenant,
});
export type RotateBody = Static<typeof RotateBody>;

const Timestamp = Type.String({ description: 'RFC 3339' });

export const EndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Description,
  topics: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why delivery stopped (a 410 answer)' }),
  disabled_at: Type.Union([Timestamp, Type.Null()]),
  timeout_ms: Type.Integer(),
  max_concurrency: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatedEndpoint = Type.Object({
  ...EndpointSchema.properties,
  secret: Type.String({ description: 'whsec_...: verifies the v1 signatures; also at GET /webhooks/{id}/secret' }),
});

export const EndpointList = Type.Object({ endpoints: Type.Array(EndpointSchema) });

export const SecretResponse = Type.Object({ secret: Type.String() });

export const RotatedSecretResponse = Type.Object({
  secret: Type.String({ description: 'The new secret, signing from now on' }),
  previous_valid_until: Type.String({ description: 'Until when the previous secret still signs (RFC 3339)' }),
});

export const AttemptSchema = Type.Object({
  id: Type.String(),
  message_id: Type.String({ description: 'The queued delivery this attempt belongs to' }),
  event_id: Type.String(),
  attempt: Type.Integer({ description: '1 for the first try' }),
  outcome: Type.String({ description: 'success | http_error | timeout | network_error | refused' }),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  response: Type.Union([Type.String(), Type.Null()], { description: "The answer's first KiB" }),
  duration_ms: Type.Integer(),
  attempted_at: Timestamp,
});

export const AttemptList = Type.Object({ attempts: Type.Array(AttemptSchema) });

export const MessageSchema = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.String({ description: 'pending | delivered | failed | cancelled' }),
  attempts: Type.Integer(),
  next_attempt_at: Timestamp,
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
});

export const WebhookMessageList = Type.Object({ messages: Type.Array(MessageSchema) });

export const RedeliverResponse = Type.Object({ queued: Type.Boolean() });

export const JwksSchema = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.String(),
        crv: Type.String(),
        x: Type.String(),
        kid: Type.String({ description: 'RFC 7638 thumbprint' }),
        alg: Type.String(),
        use: Type.Optional(Type.String()),
      }),
    ),
  },
  { description: 'The Ed25519 public keys that verify v1a signatures (JWK Set)' },
);
