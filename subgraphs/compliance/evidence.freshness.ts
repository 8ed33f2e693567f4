// A control's freshness from its evidence, as a pure function of `now` (tests pass their own):
// fresh while the evidence in force that lasts longest expires after the expiring window,
// expiring within it, stale once nothing is in force (or there never was evidence).
import type { ControlFreshness } from './compliance.types';
import type { FreshnessRow } from './evidence.store';

const DAY_MS = 86_400_000;

export function freshnessOf(
  framework: string,
  controlId: string,
  row: FreshnessRow | undefined,
  now: Date,
  expiringDays: number,
): ControlFreshness {
  const expiry = row?.latestExpiry ?? null;
  const inForce = expiry !== null && expiry.getTime() > now.getTime();
  const status = !inForce ? 'stale' : expiry.getTime() <= now.getTime() + expiringDays * DAY_MS ? 'expiring' : 'fresh';
  return {
    framework,
    controlId,
    status,
    expiresAt: inForce ? expiry : null,
    lastCollectedAt: row?.lastCollectedAt ?? null,
    evidenceCount: row?.evidenceCount ?? 0,
  };
}
