// The webhook routes of the events service's REST door (the gateway proxies /api/events/webhooks/...):
// one call into subgraphs/events/webhooks' WebhookService per route, shaped as snake_case JSON.
// Another tenant's endpoint id is a 404 (the stores filter by tenant), never a 403 that would
// confirm it exists. The tenant's JWK Set has two doors: the caller's own (authenticated, through
// the gateway) and a public one under /.well-known for receivers that have no account.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { NotFoundError } from '../../platform/errors/domain-errors';
import type { DeliveryRow, Endpoint, EndpointInput, MessageRow, WebhookService } from '../../subgraphs/events/webhooks';
import { DeletedResponse, responses } from './events.schemas';
import {
  AttemptList,
  CreateEndpointBody,
  CreatedEndpoint,
  EndpointList,
  EndpointParams,
  EndpointSchema,
  EventParams,
  JwksSchema,
  LogQuery,
  RedeliverResponse,
  RotateBody,
  RotatedSecretResponse,
  SecretResponse,
  TenantParams,
  UpdateEndpointBody,
  WebhookMessageList,
  WebhookTenantQuery,
} from './webhooks.schemas';

/** Timestamps leave as RFC 3339 whichever form the driver gave them in. */
function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

function endpointJson(e: Endpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    topics: e.topics,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    disabled_at: e.disabledAt ? iso(e.disabledAt) : null,
    timeout_ms: e.timeoutMs,
    max_concurrency: e.maxConcurrency,
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
  };
}

function attemptJson(a: DeliveryRow) {
  return {
    id: a.id,
    message_id: a.queue_id,
    event_id: a.event_id,
    attempt: Number(a.attempt),
    outcome: a.outcome,
    status_code: a.status_code === null ? null : Number(a.status_code),
    response: a.response,
    duration_ms: Number(a.duration_ms),
    attempted_at: iso(a.attempted_at),
  };
}

function messageJson(m: MessageRow) {
  return {
    id: m.id,
    event_id: m.event_id,
    event_type: m.event_type,
    status: m.status,
    attempts: Number(m.attempts),
    next_attempt_at: iso(m.next_attempt_at),
    last_error: m.last_error,
    created_at: iso(m.created_at),
    finished_at: m.finished_at ? iso(m.finished_at) : null,
  };
}

/** The wire's snake_case fields as the domain's input (absent stays absent: PATCH changes only what it names). */
function endpointInput(b: UpdateEndpointBody): EndpointInput {
  const input: EndpointInput = {};
  if (b.url !== undefined) input.url = b.url;
  if (b.description !== undefined) input.description = b.description;
  if (b.topics !== undefined) input.topics = b.topics;
  if (b.enabled !== undefined) input.enabled = b.enabled;
  if (b.timeout_ms !== undefined) input.timeoutMs = b.timeout_ms;
  if (b.max_concurrency !== undefined) input.maxConcurrency = b.max_concurrency;
  return input;
}

const tags = ['webhooks'];

export function registerWebhookRoutes(routes: FastifyInstance, webhooks: WebhookService): void {
  routes.post<{ Body: CreateEndpointBody }>(
    '/webhooks',
    {
      schema: {
        tags,
        summary:
          'Registers a webhook endpoint (201 with its secret); a URL resolving to a private or loopback address is a 422',
        body: CreateEndpointBody,
        response: { ...responses(CreatedEndpoint), 201: CreatedEndpoint },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { endpoint, secret } = await webhooks.create(callerOf(request), endpointInput(b), b.tenant_id);
      return reply.code(201).send({ ...endpointJson(endpoint), secret });
    },
  );

  routes.get<{ Querystring: WebhookTenantQuery }>(
    '/webhooks',
    {
      schema: {
        tags,
        summary: "The tenant's webhook endpoints",
        querystring: WebhookTenantQuery,
        response: responses(EndpointList),
      },
    },
    async (request) => ({
      endpoints: (await webhooks.list(callerOf(request), request.query.tenant_id)).map(endpointJson),
    }),
  );

  // Static paths before /webhooks/:id in meaning (the router prefers static segments anyway).
  routes.get<{ Querystring: WebhookTenantQuery }>(
    '/webhooks/jwks.json',
    {
      schema: {
        tags,
        summary: "The tenant's public signing keys (JWK Set, Ed25519) that verify v1a signatures",
        querystring: WebhookTenantQuery,
        response: responses(JwksSchema),
      },
    },
    async (request) => webhooks.jwks(callerOf(request), request.query.tenant_id),
  );

  routes.post<{ Body: RotateBody }>(
    '/webhooks/signing-keys/rotate',
    {
      schema: {
        tags,
        summary: 'A new Ed25519 signing key; the previous ones keep signing and stay published for the overlap',
        body: RotateBody,
        response: responses(JwksSchema),
      },
    },
    async (request) =>
      webhooks.rotateSigningKey(callerOf(request), request.body.overlap_seconds, request.body.tenant_id),
  );

  // Public: a receiver verifies v1a signatures with these keys and needs no account for it; they
  // are public keys. Makes no key: an unknown tenant (or one without endpoints) is a 404.
  routes.get<{ Params: TenantParams }>(
    '/.well-known/webhooks/:tenant/jwks.json',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: "A tenant's published webhook signing keys (JWK Set), without authentication",
        params: TenantParams,
        response: responses(JwksSchema),
      },
    },
    async (request) => {
      const jwks = await webhooks.publishedJwks(request.params.tenant);
      if (!jwks) throw new NotFoundError('No webhook signing keys for this tenant');
      return jwks;
    },
  );

  routes.get<{ Params: EndpointParams; Querystring: WebhookTenantQuery }>(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'A webhook endpoint',
        params: EndpointParams,
        querystring: WebhookTenantQuery,
        response: responses(EndpointSchema),
      },
    },
    async (request) => endpointJson(await webhooks.get(callerOf(request), request.params.id, request.query.tenant_id)),
  );

  routes.patch<{ Params: EndpointParams; Body: UpdateEndpointBody }>(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Changes an endpoint (only the fields given); enabled: true re-enables one a 410 disabled',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: responses(EndpointSchema),
      },
    },
    async (request) => {
      const b = request.body;
      return endpointJson(await webhooks.update(callerOf(request), request.params.id, endpointInput(b), b.tenant_id));
    },
  );

  routes.delete<{ Params: EndpointParams; Querystring: WebhookTenantQuery }>(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Deletes an endpoint; what was queued for it is cancelled',
        params: EndpointParams,
        querystring: WebhookTenantQuery,
        response: responses(DeletedResponse),
      },
    },
    async (request) => {
      await webhooks.remove(callerOf(request), request.params.id, request.query.tenant_id);
      return { deleted: true };
    },
  );

  routes.get<{ Params: EndpointParams; Querystring: WebhookTenantQuery }>(
    '/webhooks/:id/secret',
    {
      schema: {
        tags,
        summary: "The endpoint's current secret (whsec_...); needs the write scope",
        params: EndpointParams,
        querystring: WebhookTenantQuery,
        response: responses(SecretResponse),
      },
    },
    async (request) => ({
      secret: await webhooks.secret(callerOf(request), request.params.id, request.query.tenant_id),
    }),
  );

  routes.post<{ Params: EndpointParams; Body: RotateBody }>(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        tags,
        summary: 'A new secret signs from now on; the previous one keeps signing beside it for overlap_seconds',
        params: EndpointParams,
        body: RotateBody,
        response: responses(RotatedSecretResponse),
      },
    },
    async (request) => {
      const b = request.body;
      const rotated = await webhooks.rotateSecret(callerOf(request), request.params.id, b.overlap_seconds, b.tenant_id);
      return { secret: rotated.secret, previous_valid_until: rotated.previousValidUntil.toISOString() };
    },
  );

  routes.get<{ Params: EndpointParams; Querystring: LogQuery }>(
    '/webhooks/:id/attempts',
    {
      schema: {
        tags,
        summary: 'The delivery log: one entry per HTTP attempt, newest first',
        params: EndpointParams,
        querystring: LogQuery,
        response: responses(AttemptList),
      },
    },
    async (request) => {
      const q = request.query;
      const attempts = await webhooks.attempts(callerOf(request), request.params.id, q.limit, q.tenant_id);
      return { attempts: attempts.map(attemptJson) };
    },
  );

  routes.get<{ Params: EndpointParams; Querystring: LogQuery }>(
    '/webhooks/:id/messages',
    {
      schema: {
        tags,
        summary: "The endpoint's deliveries, one per event (pending, delivered, failed, cancelled), newest first",
        params: EndpointParams,
        querystring: LogQuery,
        response: responses(WebhookMessageList),
      },
    },
    async (request) => {
      const q = request.query;
      const messages = await webhooks.messages(callerOf(request), request.params.id, q.limit, q.tenant_id);
      return { messages: messages.map(messageJson) };
    },
  );

  routes.post<{ Params: EventParams; Querystring: WebhookTenantQuery }>(
    '/webhooks/:id/messages/:event_id/redeliver',
    {
      schema: {
        tags,
        summary: 'Sends an event to this endpoint again with fresh attempts (202); 409 while it is still queued',
        params: EventParams,
        querystring: WebhookTenantQuery,
        response: { ...responses(RedeliverResponse), 202: RedeliverResponse },
      },
    },
    async (request, reply) => {
      const p = request.params;
      await webhooks.redeliver(callerOf(request), p.id, p.event_id, request.query.tenant_id);
      return reply.code(202).send({ queued: true });
    },
  );
}
