// A finding's state change as the `scanner.finding` notice the compliance service takes in as
// evidence (platform/contracts/pipeline.events.ts): ids, the rule, its controls and where, never a
// matched value. Written in the scan's transaction through the notice outbox, so a change and its
// notice commit together and the relay publishes it on the backbone.
import { SCANNER_FINDING, type ScannerFinding } from '../../platform/contracts/pipeline.events';
import { pendingNotice, sqlInsertNotices } from '../../platform/outbox/notice.writer';
import type { SqlQuery } from '../../platform/db/sql';
import type { Finding, FindingStatus, TargetKind } from './scanner.types';

const WIRE_STATUS: Record<FindingStatus, ScannerFinding['status']> = {
  open: 'open',
  reopened: 'reopened',
  suppressed: 'suppressed',
  fixed: 'resolved',
};

export function locationOf(f: Pick<Finding, 'path' | 'line' | 'detail'>): string {
  return `${f.path}${f.line !== null ? `:${f.line}` : ''}${f.detail ? `#${f.detail}` : ''}`.slice(0, 2000);
}

export function findingNotice(f: Finding, scanId: string, targetKind: TargetKind, at: Date): ScannerFinding {
  return {
    tenant_id: f.tenantId,
    finding_id: f.id,
    scan_id: scanId,
    pack_id: f.packId,
    pack_version: f.packVersion,
    rule_id: f.ruleId,
    severity: f.severity,
    status: WIRE_STATUS[f.status],
    // A config-service target is configuration to the compliance service, as a settings profile is.
    target_kind: targetKind === 'config' ? 'configuration' : targetKind === 'data_asset' ? 'data' : targetKind,
    location: locationOf(f),
    fingerprint: f.fingerprint,
    controls: f.controls.slice(0, 100),
    at: at.toISOString(),
  };
}

/** Writes the notices in batches of one statement each. */
export async function writeFindingNotices(
  q: SqlQuery,
  service: string,
  notices: readonly ScannerFinding[],
  correlationId: string,
): Promise<void> {
  for (let i = 0; i < notices.length; i += 500)
    await sqlInsertNotices(
      q,
      notices
        .slice(i, i + 500)
        .map((n) =>
          pendingNotice(service, SCANNER_FINDING, n, { tenantId: n.tenant_id, subject: n.finding_id, correlationId }),
        ),
    );
}
