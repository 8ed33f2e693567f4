// How evidence reaches the ledger and how its proofs come back, through the typed ledger clients
// (platform/clients/ledger.client.ts) with the compliance service's own identity scoped to the
// evidence's tenant. Each revision is one `compliance_evidence` entry whose idempotency key is
// the revision's identity, so a retry after a lost answer gets the same entry, never a second.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import {
  createLedgerClient,
  createLedgerProofClient,
  type LedgerInclusionProof,
} from '../../platform/clients/ledger.client';
import { EVIDENCE_LEDGER_EVENT } from './compliance.audit';
import type { ControlRef } from './compliance.types';

export interface EvidenceEntry {
  itemId: string;
  revision: number;
  contentSha256: string;
  source: string;
  eventId: string | null;
  controls: ControlRef[];
  recordedBy: string | null;
  correlationId?: string;
}

export interface EvidenceLedger {
  record(tenantId: string, entry: EvidenceEntry): Promise<{ entryId: string; chainHash: string }>;
  inclusionProof(tenantId: string, entryId: string, correlationId?: string): Promise<LedgerInclusionProof>;
}

export function evidenceIdempotencyKey(itemId: string, revision: number): string {
  return `compliance-evidence:${itemId}:${revision}`;
}

export function createEvidenceLedger(ledgerUrl: string, identity: DelegatedIdentity): EvidenceLedger {
  const proofs = createLedgerProofClient(ledgerUrl, identity);
  return {
    async record(tenantId, e) {
      const client = createLedgerClient({ baseUrl: ledgerUrl, token: () => identity.tokenFor(tenantId) });
      const answer = await client.append(
        {
          tenant_id: tenantId,
          event_type: EVIDENCE_LEDGER_EVENT,
          event_data: {
            item_id: e.itemId,
            revision: e.revision,
            content_sha256: e.contentSha256,
            source: e.source,
            event_id: e.eventId,
            controls: e.controls.map((c) => ({ framework: c.framework, control_id: c.controlId })),
          },
          user_id: e.recordedBy,
          correlation_id: e.correlationId ?? null,
          idempotency_key: evidenceIdempotencyKey(e.itemId, e.revision),
        },
        { correlationId: e.correlationId },
      );
      return { entryId: answer.id, chainHash: answer.chain_hash };
    },
    inclusionProof: (tenantId, entryId, correlationId) => proofs.inclusion({ tenantId, correlationId }, entryId),
  };
}
