// The events service's API as other services call it, in wire names: the request and response
// types of platform/clients/events.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

/** A stored event in CloudEvents 1.0 structured JSON, with its stream position. */
export interface CloudEventJson {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  subject?: string;
  datacontenttype: string;
  /** The tenant extension. */
  tenantid: string;
  traceparent?: string;
  topic: string;
  position: number;
  data: unknown;
}

export interface PublishEventRequest {
  topic: string;
  data: unknown;
  id?: string;
  source?: string;
  type?: string;
  subject?: string;
  time?: string;
  traceparent?: string;
  tenant_id?: string;
}

export interface PublishEventResponse {
  event: CloudEventJson;
  duplicate: boolean;
}

export interface CreateSubscriptionRequest {
  name: string;
  topic: string;
  from_position?: number;
  max_deliveries?: number;
  ack_timeout_ms?: number;
  backoff_ms?: number;
  tenant_id?: string;
}

export interface SubscriptionView {
  name: string;
  topic: string;
  position: number;
  max_deliveries: number;
  ack_timeout_ms: number;
  backoff_ms: number;
}

export interface PulledMessages {
  messages: { lease_id: string; attempt: number; event: CloudEventJson }[];
}

export interface DeadLetterView {
  subscription: string;
  position: number;
  attempts: number;
  last_error: string | null;
  dead_at: string;
  event: CloudEventJson;
}
