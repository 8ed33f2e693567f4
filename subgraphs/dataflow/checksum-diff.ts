// The checksum-and-split diff (data-diff's method, issue 33): compare the two datasets' count and
// checksum over a key range; equal ranges are settled without reading a row; a differing range is
// split into parts and each part compared again, until a range is small enough to compare row
// by row. Only the ranges that differ are ever read. Exact comparison: a key on one side only is
// unmatched, the same key with other data a break (tolerance rules need the `match` method).
import type { BreakRow, CategoryReport, PackReconciliation, ReconciliationResult } from './dataflow.types';
import type { DatasetStore, KeyRange } from './dataset.store';
import { DEFAULT_SAMPLE_SIZE, masked } from './reconcile.match';

export interface DiffOptions {
  /** A range with at most this many rows (both sides) is compared row by row. */
  leafRows: number;
  /** How many parts a differing range is split into. */
  fanout: number;
}

export const DEFAULT_DIFF: DiffOptions = { leafRows: 2000, fanout: 16 };

export async function checksumDiff(
  store: DatasetStore,
  tenantId: string,
  spec: PackReconciliation,
  left: string,
  right: string,
  options: DiffOptions = DEFAULT_DIFF,
): Promise<{ result: ReconciliationResult; rows: BreakRow[] }> {
  const pii = spec.pii ?? [];
  const sampleSize = spec.sample_size ?? DEFAULT_SAMPLE_SIZE;
  const cat = (): CategoryReport => ({ count: 0, total: 0, samples: [] });
  const out = { matched: cat(), unmatched_left: cat(), unmatched_right: cat(), breaks: cat() };
  const rows: BreakRow[] = [];
  const differing: { from: string | null; to: string | null; rows: number }[] = [];
  let compared = 0;
  const add = (c: keyof typeof out, key: string, detail: Record<string, unknown>, n = 1) => {
    out[c].count += n;
    if (c === 'matched') return;
    if (out[c].samples.length < sampleSize) out[c].samples.push({ key, ...detail });
    rows.push({ reconciliation: spec.name, category: c === 'breaks' ? 'break' : c, key, detail });
  };

  const visit = async (range: KeyRange): Promise<void> => {
    const sums = await store.checksums(tenantId, left, right, range);
    if (sums.left.count === sums.right.count && sums.left.sum === sums.right.sum) {
      out.matched.count += sums.left.count;
      return;
    }
    const total = sums.left.count + sums.right.count;
    const parts = total > options.leafRows ? await store.splitKeys(tenantId, left, right, range, options.fanout) : [];
    if (parts.length === 0) {
      differing.push({ ...range, rows: total });
      const both = await store.rowsIn(tenantId, left, right, range);
      compared += total;
      const byKey = new Map(both.right.map((r) => [r.key, r]));
      for (const l of both.left) {
        const r = byKey.get(l.key);
        if (!r) add('unmatched_left', l.key, { left: masked(l.data, pii) });
        else {
          byKey.delete(l.key);
          if (JSON.stringify(sorted(l.data)) === JSON.stringify(sorted(r.data))) add('matched', l.key, {});
          else add('breaks', l.key, { left: masked(l.data, pii), right: masked(r.data, pii) });
        }
      }
      for (const r of byKey.values()) add('unmatched_right', r.key, { right: masked(r.data, pii) });
      return;
    }
    const bounds = [range.from, ...parts, range.to];
    for (let i = 0; i < bounds.length - 1; i++) await visit({ from: bounds[i]!, to: bounds[i + 1]! });
  };
  await visit({ from: null, to: null });

  const failed = out.unmatched_left.count + out.unmatched_right.count + out.breaks.count > 0;
  return {
    result: {
      name: spec.name,
      method: 'checksum_diff',
      result: failed ? 'failed' : 'passed',
      ...out,
      differing_ranges: differing,
      rows_compared: compared,
    },
    rows,
  };
}

/** Key order does not make two records differ (jsonb already sorts them; this is for the leaf's JS side). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}
