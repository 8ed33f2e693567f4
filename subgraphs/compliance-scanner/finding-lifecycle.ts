// How a scan moves findings, as a pure function (unit-tested without a database): a match never
// seen is opened (or suppressed at once when an approved suppression covers it); a fixed finding
// seen again is reopened; a suppressed finding whose suppression is no longer in force is
// reopened; a finding of the pack the scan did not see is fixed. An inline `scanner:ignore` counts
// only through an approved suppression: otherwise it is listed as ignored and the finding stays
// open. Each state change is a transition, published as `scanner.finding`.
import { randomUUID } from 'node:crypto';
import picomatch from 'picomatch';
import type { ScannerRule } from '../../platform/contracts/scanner-pack.schema';
import type { Match } from './scan-engine';
import type { Finding, FindingStatus, IgnoredInlineSkip, Suppression } from './scanner.types';

export interface Transition {
  finding: Finding;
  from: FindingStatus | null;
}

export interface Reconciled {
  inserted: Finding[];
  updated: Finding[];
  transitions: Transition[];
  ignoredInlineSkips: IgnoredInlineSkip[];
  counts: { opened: number; reopened: number; fixed: number; suppressed: number };
}

/** The package URL a match names, when its rule reads package.json and the match is a dependency. */
export function purlOf(rule: ScannerRule, match: Pick<Match, 'detail'>): string | null {
  return rule.input === 'package_json' && match.detail ? `pkg:npm/${match.detail.replace(/^@/, '%40')}` : null;
}

/** The first suppression in force that covers a match: by fingerprint, by rule and path glob, or by package URL. */
export function coveringSuppression(
  suppressions: readonly Suppression[],
  match: Pick<Match, 'fingerprint' | 'ruleId' | 'path'>,
  purl: string | null,
): Suppression | null {
  for (const s of suppressions) {
    if (s.scope === 'fingerprint' && s.fingerprint === match.fingerprint) return s;
    if (
      s.scope === 'rule_path' &&
      s.ruleId === match.ruleId &&
      picomatch.isMatch(match.path, s.pathGlob ?? '', { dot: true })
    )
      return s;
    if (s.scope === 'purl' && purl !== null && s.purl !== null && (purl === s.purl || purl.startsWith(`${s.purl}@`)))
      return s;
  }
  return null;
}

export function reconcile(input: {
  tenantId: string;
  targetId: string;
  scanId: string;
  pack: { packId: string; version: string; rules: readonly ScannerRule[] };
  existing: readonly Finding[];
  matches: readonly Match[];
  suppressions: readonly Suppression[];
  now: Date;
}): Reconciled {
  const rules = new Map(input.pack.rules.map((r) => [r.id, r]));
  const byFingerprint = new Map(input.existing.map((f) => [f.fingerprint, f]));
  const inForce = new Set(input.suppressions.map((s) => s.id));
  const out: Reconciled = {
    inserted: [],
    updated: [],
    transitions: [],
    ignoredInlineSkips: [],
    counts: { opened: 0, reopened: 0, fixed: 0, suppressed: 0 },
  };
  const seen = new Set<string>();
  const move = (finding: Finding, from: FindingStatus | null) => {
    out.transitions.push({ finding, from });
    if (finding.status === 'open') out.counts.opened += 1;
    else if (finding.status === 'reopened') out.counts.reopened += 1;
    else if (finding.status === 'fixed') out.counts.fixed += 1;
    else out.counts.suppressed += 1;
  };

  for (const m of input.matches) {
    if (seen.has(m.fingerprint)) continue;
    seen.add(m.fingerprint);
    const rule = rules.get(m.ruleId)!;
    const suppression = coveringSuppression(input.suppressions, m, purlOf(rule, m));
    if (m.inlineSkip && !suppression)
      out.ignoredInlineSkips.push({ rule_id: m.ruleId, path: m.path, line: m.line, fingerprint: m.fingerprint });
    const prior = byFingerprint.get(m.fingerprint);
    const base = {
      line: m.line,
      detail: m.detail,
      inlineSkip: m.inlineSkip,
      lastSeen: input.now,
      lastScanId: input.scanId,
      packVersion: input.pack.version,
      severity: rule.severity,
      controls: rule.controls,
    };
    if (!prior) {
      const finding: Finding = {
        ...base,
        id: randomUUID(),
        tenantId: input.tenantId,
        targetId: input.targetId,
        fingerprint: m.fingerprint,
        ruleId: m.ruleId,
        packId: input.pack.packId,
        status: suppression ? 'suppressed' : 'open',
        path: m.path,
        suppressionId: suppression?.id ?? null,
        firstSeen: input.now,
      };
      out.inserted.push(finding);
      move(finding, null);
      continue;
    }
    let status = prior.status;
    let suppressionId = prior.suppressionId;
    if (suppression) {
      status = 'suppressed';
      suppressionId = suppression.id;
    } else if (
      prior.status === 'fixed' ||
      (prior.status === 'suppressed' && !(prior.suppressionId && inForce.has(prior.suppressionId)))
    ) {
      status = 'reopened';
      suppressionId = null;
    }
    const finding: Finding = { ...prior, ...base, status, suppressionId };
    out.updated.push(finding);
    if (status !== prior.status) move(finding, prior.status);
  }

  for (const prior of input.existing) {
    if (seen.has(prior.fingerprint) || prior.status === 'fixed') continue;
    const finding: Finding = { ...prior, status: 'fixed', suppressionId: null };
    out.updated.push(finding);
    move(finding, prior.status);
  }
  return out;
}
