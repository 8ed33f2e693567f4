// Per-request GraphQL context: the caller (built by the kernel) and the events service. The
// subgraph declares no entities, so no reference loaders; a subscription's dead letters are read
// per subscription (one query each, and a tenant has few subscriptions).
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { EventsService } from './events.service';
import type { EventRecord } from '../../platform/events/backbone/backbone.types';

export interface EventsGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: EventsService;
  /** Present on graphql-ws connections only (see events.subscriptions.ts). */
  subscribeEvents?: (
    topic: string,
    afterPosition: number | undefined,
    tenantId: string | undefined,
  ) => Promise<AsyncIterableIterator<EventRecord>>;
}

export function eventsContext(caller: Caller, service: EventsService, requireAuth: boolean): EventsGraphQLContext {
  return { caller, requireAuth, service };
}

/** The caller, refusing anonymous callers when EVENTS_REQUIRE_AUTH (or REQUIRE_AUTH) is on. */
export function callerOf(ctx: EventsGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
