// The events service's records and input limits, shared by the domain, its stores and both doors.

/** The owner of the catalogue's topics (seeded from platform/contracts): publishing to them is for operators. */
export const PLATFORM_OWNER = 'platform';

export const MAX_NAME = 200;
export const MAX_PAGE = 500;
export const DEFAULT_PAGE = 100;
export const MAX_PULL = 100;

/** A topic of the catalog: its payload's JSON Schema and who owns it. */
export interface Topic {
  owner: string;
  name: string;
  version: number;
  schema: Record<string, unknown>;
  description: string;
  /** A platform topic (seeded from platform/contracts). */
  platform: boolean;
}

/** A stored event: the CloudEvents 1.0 envelope plus its stream position. */
export interface EventRecord {
  id: string;
  tenantId: string;
  topic: string;
  /** Monotonic within (tenant, topic), from 1. */
  position: number;
  source: string;
  type: string;
  specversion: '1.0';
  /** RFC 3339. */
  time: string;
  subject: string | null;
  traceparent: string | null;
  data: unknown;
}

/** What a publisher gives; the service fills in the rest of the envelope. */
export interface PublishInput {
  tenantId?: string;
  topic: string;
  data: unknown;
  id?: string;
  source?: string;
  type?: string;
  subject?: string;
  time?: string;
  traceparent?: string;
}

/** A row ready for the store: the envelope without its position (the store assigns it). */
export type NewEvent = Omit<EventRecord, 'position' | 'specversion'> & { size: number };

export interface Subscription {
  tenantId: string;
  name: string;
  topic: string;
  /** The last position taken into the group's deliveries. */
  position: number;
  maxDeliveries: number;
  ackTimeoutMs: number;
  backoffMs: number;
}

export interface SubscriptionInput {
  tenantId?: string;
  name: string;
  topic: string;
  /** Start after this position (0: the whole stream); default: only events published from now on. */
  fromPosition?: number;
  maxDeliveries?: number;
  ackTimeoutMs?: number;
  backoffMs?: number;
}

/** A message handed to a consumer: ack or nack it with its lease id. */
export interface LeasedMessage {
  leaseId: string;
  attempt: number;
  event: EventRecord;
}

export type DeliveryState = 'ready' | 'leased' | 'dead';

/** A dead-lettered message. */
export interface DeadLetter {
  subscription: string;
  position: number;
  attempts: number;
  lastError: string | null;
  deadAt: string;
  event: EventRecord;
}

/** Where a replay starts: after a position, or at the first event at or after a time (exactly one). */
export interface ReplayFrom {
  afterPosition?: number;
  time?: string;
}
