// The webhook part of the events subgraph's resolvers (spread into resolvers.ts): one call into
// the WebhookService per field, the same calls as the REST door; the rest is naming (the stores'
// rows are snake_case, timestamps leave as RFC 3339).
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { callerOf, webhooksOf } from './graphql.context';
import type {
  MutationResolvers,
  QueryResolvers,
  RotatedWebhookSecretResolvers,
  UpdateWebhookEndpointInput,
  WebhookAttemptResolvers,
  WebhookEndpointResolvers,
  WebhookMessageResolvers,
} from './resolvers.generated';
import type { EndpointInput } from './webhooks';

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** GraphQL's absent and null both leave a field unchanged, except description, which null clears. */
function updateInput(input: UpdateWebhookEndpointInput): EndpointInput {
  return {
    url: opt(input.url),
    description: input.description,
    topics: input.topics ? [...input.topics] : undefined,
    enabled: opt(input.enabled),
    timeoutMs: opt(input.timeoutMs),
    maxConcurrency: opt(input.maxConcurrency),
  };
}

export const webhookQuery = {
  webhookEndpoints: (_, args, ctx) => webhooksOf(ctx).list(callerOf(ctx), opt(args.tenantId)),
  webhookEndpoint: (_, args, ctx) => orNull(webhooksOf(ctx).get(callerOf(ctx), args.id, opt(args.tenantId))),
} satisfies QueryResolvers;

export const webhookMutation = {
  createWebhookEndpoint: (_, { input }, ctx) =>
    webhooksOf(ctx).create(
      callerOf(ctx),
      {
        url: input.url,
        description: input.description,
        topics: input.topics ? [...input.topics] : undefined,
        enabled: opt(input.enabled),
        timeoutMs: opt(input.timeoutMs),
        maxConcurrency: opt(input.maxConcurrency),
      },
      opt(input.tenantId),
    ),
  updateWebhookEndpoint: (_, args, ctx) =>
    webhooksOf(ctx).update(callerOf(ctx), args.id, updateInput(args.input), opt(args.tenantId)),
  deleteWebhookEndpoint: async (_, args, ctx) => {
    await webhooksOf(ctx).remove(callerOf(ctx), args.id, opt(args.tenantId));
    return true;
  },
  rotateWebhookSecret: (_, args, ctx) =>
    webhooksOf(ctx).rotateSecret(callerOf(ctx), args.id, opt(args.overlapSeconds), opt(args.tenantId)),
} satisfies MutationResolvers;

export const webhookTypes = {
  WebhookEndpoint: {
    disabledAt: (e) => isoOrNull(e.disabledAt),
    createdAt: (e) => iso(e.createdAt),
    updatedAt: (e) => iso(e.updatedAt),
    attempts: (e, args, ctx) => webhooksOf(ctx).attempts(callerOf(ctx), e.id, opt(args.limit), e.tenantId),
    messages: (e, args, ctx) => webhooksOf(ctx).messages(callerOf(ctx), e.id, opt(args.limit), e.tenantId),
  } satisfies WebhookEndpointResolvers,
  WebhookAttempt: {
    messageId: (a) => a.queue_id,
    eventId: (a) => a.event_id,
    attempt: (a) => Number(a.attempt),
    statusCode: (a) => (a.status_code === null ? null : Number(a.status_code)),
    durationMs: (a) => Number(a.duration_ms),
    attemptedAt: (a) => iso(a.attempted_at),
  } satisfies WebhookAttemptResolvers,
  WebhookMessage: {
    eventId: (m) => m.event_id,
    eventType: (m) => m.event_type,
    attempts: (m) => Number(m.attempts),
    nextAttemptAt: (m) => iso(m.next_attempt_at),
    lastError: (m) => m.last_error,
    createdAt: (m) => iso(m.created_at),
    finishedAt: (m) => isoOrNull(m.finished_at),
  } satisfies WebhookMessageResolvers,
  RotatedWebhookSecret: {
    previousValidUntil: (r) => iso(r.previousValidUntil),
  } satisfies RotatedWebhookSecretResolvers,
};
