// The ledger event as REST shows it, shared by the event routes and the proof routes.
import type { LedgerEvent } from '../../subgraphs/ledger/ledger.types';

/** The event as REST shows it: snake_case, event_data as the JSON object that was hashed. */
export function eventJson(e: LedgerEvent) {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    seq: e.seq,
    event_type: e.eventType,
    event_data: JSON.parse(e.eventDataText) as Record<string, unknown>,
    created_at: e.createdAt,
    content_hash: e.contentHash,
    previous_hash: e.previousHash,
    chain_hash: e.chainHash,
    user_id: e.userId,
    correlation_id: e.correlationId,
    description: e.description,
    written_by: e.writtenBy,
    trace_id: e.traceId,
  };
}
