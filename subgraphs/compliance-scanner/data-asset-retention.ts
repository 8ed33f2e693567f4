// Retention checks of data assets: which of the assets a scan saw are older than the tenant's
// retention policy for their record type (the compliance service's policies, read through the
// typed ComplianceClient as the scanner for the target's tenant, so only that tenant's policies
// ever apply). An overdue asset means the owning service's purge has not removed it (the purge
// off, failing, or a legal hold keeping it: holds are not visible to the scanner yet). Pure: the
// ages are measured against the clock the scan passes in.
import type { ComplianceRetentionRuleJson } from '../../platform/clients/compliance.client';

const DAY_MS = 86_400_000;

/** An asset a scan saw, with the record type its retention policy is set for. */
export interface AssetAge {
  /** Where findings are placed: `retrieval:document/<id>`. */
  at: string;
  /** A platform/retention record type (`rag_document`). */
  recordType: string;
  createdAt: Date;
}

/** An asset kept past its policy: never the asset's content, only where, what type and how long. */
export interface RetentionOverdue {
  at: string;
  recordType: string;
  retainDays: number;
  ageDays: number;
}

/** The assets older than `retain_days` for their type; types without a policy are kept, never overdue. */
export function overdueAssets(
  assets: readonly AssetAge[],
  policies: readonly ComplianceRetentionRuleJson[],
  now: Date,
): RetentionOverdue[] {
  const retain = new Map<string, number>();
  for (const p of policies) if (p.retain_days !== null) retain.set(p.record_type, p.retain_days);
  const overdue: RetentionOverdue[] = [];
  for (const a of assets) {
    const days = retain.get(a.recordType);
    if (days === undefined || Number.isNaN(a.createdAt.getTime())) continue;
    const age = now.getTime() - a.createdAt.getTime();
    if (age > days * DAY_MS)
      overdue.push({ at: a.at, recordType: a.recordType, retainDays: days, ageDays: Math.floor(age / DAY_MS) });
  }
  return overdue;
}
