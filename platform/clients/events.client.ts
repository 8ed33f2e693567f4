// Typed client for the events service (8094): how producers publish and consumers pull, ack and
// nack (docs/events.md is the wire contract). A publish whose data breaks its topic's schema is a
// ServiceCallError 422 whose body names the JSON pointer (`detail[0].ctx.pointer`); 413 and 429
// (rate, quota) say the same as the REST door. Publishing with an `id` makes a retry safe.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  CloudEventJson,
  CreateSubscriptionRequest,
  DeadLetterView,
  PublishEventRequest,
  PublishEventResponse,
  PulledMessages,
  SubscriptionView,
} from '../contracts/clients/events.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type {
  CloudEventJson,
  CreateSubscriptionRequest,
  DeadLetterView,
  PublishEventRequest,
  PublishEventResponse,
  PulledMessages,
  SubscriptionView,
};

const seg = encodeURIComponent;

export class EventsClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  publish(context: ServiceCallContext, request: PublishEventRequest): Promise<PublishEventResponse> {
    return serviceRequest(this.endpoint, 'publish', context, { method: 'POST', body: request });
  }

  /** Events of a topic after a position, in order (at most `limit`, default 100). */
  events(
    context: ServiceCallContext,
    topic: string,
    page: { afterPosition?: number; limit?: number } = {},
  ): Promise<{ events: CloudEventJson[] }> {
    return serviceRequest(this.endpoint, `topics/${seg(topic)}/events`, context, {
      query: { after_position: page.afterPosition, limit: page.limit },
    });
  }

  /** A ServiceCallError 409 when the name is taken (the group exists: just pull from it). */
  createSubscription(context: ServiceCallContext, request: CreateSubscriptionRequest): Promise<SubscriptionView> {
    return serviceRequest(this.endpoint, 'subscriptions', context, { method: 'POST', body: request });
  }

  pull(context: ServiceCallContext, subscription: string, max = 10): Promise<PulledMessages> {
    return serviceRequest(this.endpoint, `subscriptions/${seg(subscription)}/pull`, context, {
      method: 'POST',
      body: { max },
    });
  }

  ack(context: ServiceCallContext, subscription: string, leaseIds: string[]): Promise<{ acked: string[] }> {
    return serviceRequest(this.endpoint, `subscriptions/${seg(subscription)}/ack`, context, {
      method: 'POST',
      body: { lease_ids: leaseIds },
    });
  }

  nack(
    context: ServiceCallContext,
    subscription: string,
    leaseId: string,
    error?: string,
  ): Promise<{ state: 'ready' | 'dead' }> {
    return serviceRequest(this.endpoint, `subscriptions/${seg(subscription)}/nack`, context, {
      method: 'POST',
      body: { lease_id: leaseId, error },
    });
  }

  deadLetters(context: ServiceCallContext, subscription: string): Promise<{ dead_letters: DeadLetterView[] }> {
    return serviceRequest(this.endpoint, `subscriptions/${seg(subscription)}/dlq`, context);
  }

  redrive(context: ServiceCallContext, subscription: string, positions?: number[]): Promise<{ redriven: number[] }> {
    return serviceRequest(this.endpoint, `subscriptions/${seg(subscription)}/dlq/redrive`, context, {
      method: 'POST',
      body: positions ? { positions } : {},
    });
  }
}
