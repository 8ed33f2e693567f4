// What a compliance report needs from the ledger, through the typed ledger clients with the
// compliance service's own identity scoped to the report's tenant: ONE signed checkpoint taken
// when the report is generated, inclusion proofs of its evidence against that checkpoint's tree
// size (built when a report is exported, never stored: a page's through the ledger's batch route, a
// whole report's through its NDJSON stream route), and the signed-off report appended as
// `compliance_report` (spec 03: report_id, report_type, period, result) with the report's id as
// its idempotency key, so a retried sign-off lands on the same entry.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { ServiceCallError } from '../../platform/clients/service-request';
import { RateLimitedError, UnavailableError } from '../../platform/errors/domain-errors';
import {
  createLedgerClient,
  createLedgerProofClient,
  type LedgerCheckpoint,
  type LedgerInclusionBatch,
} from '../../platform/clients/ledger.client';

/** The ledger event type of a signed-off report (spec 03's ledger event table). */
export const REPORT_LEDGER_EVENT = 'compliance_report';

export interface ReportLedgerEntry {
  reportId: string;
  reportType: string;
  period: string;
  result: string;
  framework: string;
  contentSha256: string;
  checkpointTreeSize: number | null;
  generatedBy: string | null;
  signedOffBy: string;
  correlationId?: string;
}

export interface ReportLedger {
  checkpoint(tenantId: string, correlationId?: string): Promise<LedgerCheckpoint>;
  /** Up to 1,000 entries' proofs against the checkpoint of `treeSize`, one ledger call (its batch route). */
  inclusionProofs(
    tenantId: string,
    entryIds: string[],
    treeSize: number,
    correlationId?: string,
  ): Promise<LedgerInclusionBatch>;
  /**
   * Every proof of many entries (a whole report's) against the checkpoint of `treeSize`, the
   * checkpoint's tree built once by the ledger (POST /v1/ledger/proofs/inclusion/stream), in
   * batches. Optional for ports that only prove pages (tests' fakes): without it a report's proofs
   * come from `inclusionProofs` a thousand at a time (the same proofs, far slower).
   */
  inclusionProofStream?(tenantId: string, entryIds: string[], treeSize: number): AsyncIterable<LedgerInclusionBatch>;
  record(tenantId: string, entry: ReportLedgerEntry): Promise<{ entryId: string; chainHash: string }>;
}

export function reportIdempotencyKey(reportId: string): string {
  return `compliance-report:${reportId}`;
}

export function createReportLedger(ledgerUrl: string, identity: DelegatedIdentity): ReportLedger {
  const proofs = createLedgerProofClient(ledgerUrl, identity);
  return {
    checkpoint: (tenantId, correlationId) => proofs.checkpoint({ tenantId, correlationId }),
    inclusionProofs: (tenantId, entryIds, treeSize, correlationId) =>
      proofs.inclusionBatch({ tenantId, correlationId }, entryIds, treeSize),
    inclusionProofStream: (tenantId, entryIds, treeSize) => proofs.inclusionStream({ tenantId }, entryIds, treeSize),
    async record(tenantId, e) {
      const client = createLedgerClient({ baseUrl: ledgerUrl, token: () => identity.tokenFor(tenantId) });
      const answer = await client.append(
        {
          tenant_id: tenantId,
          event_type: REPORT_LEDGER_EVENT,
          event_data: {
            report_id: e.reportId,
            report_type: e.reportType,
            period: e.period,
            result: e.result,
            framework: e.framework,
            content_sha256: e.contentSha256,
            checkpoint_tree_size: e.checkpointTreeSize,
            generated_by: e.generatedBy,
            signed_off_by: e.signedOffBy,
          },
          user_id: e.signedOffBy,
          correlation_id: e.correlationId ?? null,
          idempotency_key: reportIdempotencyKey(e.reportId),
        },
        { correlationId: e.correlationId },
      );
      return { entryId: answer.id, chainHash: answer.chain_hash };
    },
  };
}

/** A ledger failure as the doors answer it: 429 the checkpoint limit, 503 an outage. */
export function ledgerFailure(err: unknown, message: string): Error {
  if (err instanceof ServiceCallError && err.status === 429)
    return new RateLimitedError(`${message}: the ledger limits checkpoints per tenant; try again shortly`, 60);
  if (err instanceof ServiceCallError || (err as Error).name === 'LedgerClientError')
    return new UnavailableError(`${message}; try again shortly`);
  return err as Error;
}
