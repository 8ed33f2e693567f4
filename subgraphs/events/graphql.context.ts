// Per-request GraphQL context: the caller (built by the kernel) and the events service. The
// subgraph declares no entities, so no reference loaders; a subscription's dead letters are read
// per subscription (one query each, and a tenant has few subscriptions).
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError, UnavailableError } from '../../platform/errors/domain-errors';
import type { EventsService } from './events.service';
import type { EventRecord } from '../../platform/events/backbone/backbone.types';
import type { WebhookService } from './webhooks/webhook.service';
import type { PlatformGroupsService } from './platform-groups.service';

export interface EventsGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: EventsService;
  /** The webhook doors' rules; absent where webhooks are not served (graphql-ws connections). */
  webhooks?: WebhookService;
  /** The operators' platform-group doors; absent on graphql-ws connections. */
  platformGroups?: PlatformGroupsService;
  /** Present on graphql-ws connections only (see events.subscriptions.ts). */
  subscribeEvents?: (
    topic: string,
    afterPosition: number | undefined,
    tenantId: string | undefined,
  ) => Promise<AsyncIterableIterator<EventRecord>>;
}

export function eventsContext(
  caller: Caller,
  service: EventsService,
  requireAuth: boolean,
  webhooks?: WebhookService,
  platformGroups?: PlatformGroupsService,
): EventsGraphQLContext {
  return {
    caller,
    requireAuth,
    service,
    ...(webhooks ? { webhooks } : {}),
    ...(platformGroups ? { platformGroups } : {}),
  };
}

/** The platform-group doors, which every HTTP request's context has (services/events.ts). */
export function platformGroupsOf(ctx: EventsGraphQLContext): PlatformGroupsService {
  if (!ctx.platformGroups) throw new UnavailableError('Platform groups are not served on this connection');
  return ctx.platformGroups;
}

/** The webhook service, which every HTTP request's context has (services/events.ts). */
export function webhooksOf(ctx: EventsGraphQLContext): WebhookService {
  if (!ctx.webhooks) throw new UnavailableError('Webhooks are not served on this connection');
  return ctx.webhooks;
}

/** The caller, refusing anonymous callers when EVENTS_REQUIRE_AUTH (or REQUIRE_AUTH) is on. */
export function callerOf(ctx: EventsGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
