// The ledger's domain types, shared by the service, store and both API doors.

/** One stored event, as the API shows it (created_at in the hashed text form). */
export interface LedgerEvent {
  id: string;
  tenantId: string;
  seq: number;
  eventType: string;
  /** The canonical JSON text of event_data, exactly as hashed and stored. */
  eventDataText: string;
  createdAt: string;
  contentHash: string;
  previousHash: string;
  chainHash: string;
  userId: string | null;
  correlationId: string | null;
  description: string | null;
  /** Who wrote it: the authenticated caller (user or service account); null for anonymous gateway traffic. */
  writtenBy: string | null;
  /** The trace of the request that caused it (observability), outside the hash rules; null when untraced. */
  traceId: string | null;
}

export interface AppendInput {
  /** The tenant to append to; the caller's when absent (GraphQL; REST always names it). */
  tenantId?: string;
  eventType: string;
  /** Any JSON from the door: prepareAppend refuses what is not an object (dict_type). */
  eventData: unknown;
  userId?: string | null;
  correlationId?: string | null;
  description?: string | null;
  idempotencyKey?: string | null;
}

export interface AppendResult {
  event: LedgerEvent;
  /** True when an earlier append with the same idempotency key is being returned. */
  replayed: boolean;
}

export interface EventFilter {
  eventType?: string;
  userId?: string;
  correlationId?: string;
  /** Inclusive lower bound, ISO 8601. */
  startTime?: string;
  /** Exclusive upper bound, ISO 8601. */
  endTime?: string;
}

export interface VerifyResult {
  valid: boolean;
  totalEvents: number;
  error: string | null;
}

/** The tenant's chain head: what the next append links to. */
export interface ChainHead {
  tenantId: string;
  lastSeq: number;
  lastHash: string;
  lastCreatedAtUs: number;
  /** The Merkle tree's frontier as stored (merkle.ts frontierText); moves with lastSeq. */
  treeFrontier: string;
}

/** A row ready to insert (hashes computed). */
export interface NewEventRow extends LedgerEvent {
  createdAtUs: number;
  idempotencyKey: string | null;
}

/** The columns verification reads: only what the hash rules need. */
export interface ChainRow {
  seq: number;
  event_type: string;
  event_data: string;
  user_id: string | null;
  created_at_text: string;
  content_hash: string;
  previous_hash: string;
  chain_hash: string;
}
