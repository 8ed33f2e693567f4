// Reconciliation by key with tolerance rules (issue 33): each left record is matched with the
// right record of the same key; a matched pair whose compared fields disagree beyond the pack's
// tolerance (amount within X, date within N days, names similar enough) is a break. Every
// category keeps its count, its amount total and a few sample rows with PII fields masked.
import levenshtein from 'js-levenshtein';
import { InputError } from '../../platform/errors/domain-errors';
import type {
  BreakRow,
  CategoryReport,
  CompareSpec,
  PackReconciliation,
  ReconciliationResult,
  StagedRecord,
} from './dataflow.types';

const DAY_MS = 86_400_000;
export const DEFAULT_SAMPLE_SIZE = 5;

export interface MatchOutcome {
  result: ReconciliationResult;
  rows: BreakRow[];
}

/** Reads a dotted path (`amount`, `party.name`) from a record. */
export function fieldOf(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** `***` in place of each PII field (dotted paths), on a copy. */
export function masked(record: Record<string, unknown>, pii: readonly string[]): Record<string, unknown> {
  return maskInPlace(structuredClone(record), pii);
}

/** `***` in place of each PII field of `record` itself: for records nobody else holds (fresh from the database). */
export function maskInPlace(record: Record<string, unknown>, pii: readonly string[]): Record<string, unknown> {
  for (const path of pii) {
    const parts = path.split('.');
    let at: unknown = record;
    for (const p of parts.slice(0, -1))
      at = at && typeof at === 'object' ? (at as Record<string, unknown>)[p] : undefined;
    const last = parts[parts.length - 1]!;
    if (at && typeof at === 'object' && last in (at as object)) (at as Record<string, unknown>)[last] = '***';
  }
  return record;
}

/** Refuses a reconciliation whose compared fields the two sides do not have (mismatched schemas). */
export function checkSchemas(
  spec: PackReconciliation,
  left: StagedRecord[],
  right: StagedRecord[],
  loc: (string | number)[],
): void {
  const missing: string[] = [];
  const has = (rows: StagedRecord[], path: string) =>
    rows.length === 0 || rows.some((r) => fieldOf(r.data, path) !== undefined);
  for (const c of spec.compare ?? []) {
    if (!has(left, c.left)) missing.push(`left '${spec.left}' has no field '${c.left}'`);
    if (!has(right, c.right ?? c.left)) missing.push(`right '${spec.right}' has no field '${c.right ?? c.left}'`);
  }
  if (spec.left_key && !has(left, spec.left_key))
    missing.push(`left '${spec.left}' has no key field '${spec.left_key}'`);
  if (spec.right_key && !has(right, spec.right_key))
    missing.push(`right '${spec.right}' has no key field '${spec.right_key}'`);
  if (missing.length > 0)
    throw InputError.of(loc, `The datasets do not have the compared fields: ${missing.join('; ')}`, 'schema_mismatch');
}

/** Why a pair differs under one rule, or null when the rule holds. */
function ruleFails(c: CompareSpec, l: unknown, r: unknown): string | null {
  switch (c.rule) {
    case 'exact':
      return JSON.stringify(l) === JSON.stringify(r) ? null : 'values differ';
    case 'amount': {
      const a = Number(l);
      const b = Number(r);
      if (!Number.isFinite(a) || !Number.isFinite(b)) return 'not a number';
      const diff = Math.abs(a - b);
      // Rounded to cents' precision so 0.1 + 0.2 style noise never breaks a pair at tolerance 0.
      return Math.round(diff * 1e6) / 1e6 <= (c.tolerance ?? 0)
        ? null
        : `amounts differ by ${Math.round(diff * 100) / 100}`;
    }
    case 'date': {
      const a = Date.parse(String(l));
      const b = Date.parse(String(r));
      if (Number.isNaN(a) || Number.isNaN(b)) return 'not a date';
      const days = Math.abs(a - b) / DAY_MS;
      return days <= (c.days ?? 0) ? null : `dates ${Math.round(days)} days apart`;
    }
    case 'fuzzy': {
      const a = String(l ?? '')
        .trim()
        .toLowerCase();
      const b = String(r ?? '')
        .trim()
        .toLowerCase();
      const longest = Math.max(a.length, b.length);
      const similarity = longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
      return similarity >= (c.threshold ?? 0.85) ? null : `similarity ${similarity.toFixed(2)}`;
    }
  }
}

function report(): CategoryReport {
  return { count: 0, total: 0, samples: [] };
}

export function matchDatasets(spec: PackReconciliation, left: StagedRecord[], right: StagedRecord[]): MatchOutcome {
  const keyOf = (r: StagedRecord, field: string | undefined) => (field ? String(fieldOf(r.data, field) ?? '') : r.key);
  const pii = spec.pii ?? [];
  const sampleSize = spec.sample_size ?? DEFAULT_SAMPLE_SIZE;
  const amount = (r: StagedRecord) => {
    const v = spec.amount_field ? Number(fieldOf(r.data, spec.amount_field)) : 0;
    return Number.isFinite(v) ? v : 0;
  };
  const byKey = new Map<string, StagedRecord>();
  for (const r of right) byKey.set(keyOf(r, spec.right_key), r);
  const out = { matched: report(), unmatched_left: report(), unmatched_right: report(), breaks: report() };
  const rows: BreakRow[] = [];
  const add = (cat: keyof typeof out, r: StagedRecord, detail: Record<string, unknown>) => {
    const c = out[cat];
    c.count++;
    c.total += amount(r);
    const sample = { key: keyOf(r, cat === 'unmatched_right' ? spec.right_key : spec.left_key), ...detail };
    if (c.samples.length < sampleSize) c.samples.push(sample);
    if (cat !== 'matched')
      rows.push({
        reconciliation: spec.name,
        category: cat === 'breaks' ? 'break' : cat,
        key: String(sample.key),
        detail,
      });
  };
  for (const l of left) {
    const k = keyOf(l, spec.left_key);
    const r = byKey.get(k);
    if (!r) {
      add('unmatched_left', l, { left: masked(l.data, pii) });
      continue;
    }
    byKey.delete(k);
    const failures: { field: string; rule: string; reason: string }[] = [];
    for (const c of spec.compare ?? []) {
      const reason = ruleFails(c, fieldOf(l.data, c.left), fieldOf(r.data, c.right ?? c.left));
      if (reason) failures.push({ field: c.left, rule: c.rule, reason });
    }
    if (failures.length === 0) add('matched', l, { left: masked(l.data, pii) });
    else add('breaks', l, { failures, left: masked(l.data, pii), right: masked(r.data, pii) });
  }
  for (const r of byKey.values()) add('unmatched_right', r, { right: masked(r.data, pii) });
  const round = (c: CategoryReport) => ({ ...c, total: Math.round(c.total * 100) / 100 });
  const failed = out.unmatched_left.count + out.unmatched_right.count + out.breaks.count > 0;
  return {
    result: {
      name: spec.name,
      method: 'match',
      result: failed ? 'failed' : 'passed',
      matched: round(out.matched),
      unmatched_left: round(out.unmatched_left),
      unmatched_right: round(out.unmatched_right),
      breaks: round(out.breaks),
    },
    rows,
  };
}
