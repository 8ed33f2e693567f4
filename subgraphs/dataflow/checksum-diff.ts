// The checksum-and-split diff (data-diff's method, issue 33): cut both datasets' keys into small
// ranges (cells), compare each side's count and checksum per cell, and read only the cells that
// differ. Equal cells are settled without reading a row. Both sides live in this one database, so
// the split is done once at the leaf size, and one statement returns every cell's sums (data-diff
// descends level by level to save round trips between two databases; here a level costs a pass
// over the rows, and the finest cut in one pass reads least). A sample of the cells is summed
// first: when most of it differs, the cells would not spare a read, and one join compares all.
// The differing cells are compared in SQL, which returns only the keys that differ. Exact comparison: a key on one side only is
// unmatched, the same key with other data a break (tolerance rules need the `match` method).
import type { BreakRow, CategoryReport, PackReconciliation, ReconciliationResult } from './dataflow.types';
import type { DatasetStore, KeyRange, RangeSums } from './dataset.store';
import { DEFAULT_SAMPLE_SIZE, masked } from './reconcile.match';

export interface DiffOptions {
  /** About how many rows (both sides) a cell holds: the most rows read for one differing key. */
  cellRows: number;
  /** At most this many cells (bigger cells for bigger tables, so the sums stay a small answer). */
  maxCells: number;
  /** How many cells, evenly spread, are summed first to decide whether the cells are worth it. */
  sampleCells: number;
  /** When the differing cells hold more than this share of the rows, compare everything in one join. */
  wholeShare: number;
}

export const DEFAULT_DIFF: DiffOptions = { cellRows: 256, maxCells: 16_384, sampleCells: 32, wholeShare: 0.5 };

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
  const add = (c: Exclude<keyof typeof out, 'matched'>, key: string, detail: Record<string, unknown>) => {
    out[c].count += 1;
    if (out[c].samples.length < sampleSize) out[c].samples.push({ key, ...detail });
    rows.push({ reconciliation: spec.name, category: c === 'breaks' ? 'break' : c, key, detail });
  };

  // Cells of about cellRows rows (both sides), cut at every (cellRows/2)-th left key.
  const { keys, count: leftCount } = await store.grid(tenantId, left, Math.max(1, Math.floor(options.cellRows / 2)));
  const thin = Math.ceil(keys.length / options.maxCells);
  const bounds = keys.filter((_, i) => (i + 1) % thin === 0);
  const cells: KeyRange[] = [...bounds, null].map((to, i) => ({ from: bounds[i - 1] ?? null, to }));
  const differs = (s: { left: RangeSums; right: RangeSums }) =>
    s.left.count !== s.right.count || s.left.sum !== s.right.sum;

  const every = Math.max(1, Math.floor(cells.length / options.sampleCells));
  const sampled = cells.filter((_, i) => i % every === 0);
  const sample = await store.rangeSums(tenantId, left, right, sampled);
  const whole = cells.length > 1 && sample.filter(differs).length > options.wholeShare * sampled.length;
  const differing: (KeyRange & { rows: number })[] = [];
  let allRows = 0;
  if (!whole) {
    const sums = await store.rangeSums(tenantId, left, right, cells);
    sums.forEach((s, i) => {
      allRows += s.left.count + s.right.count;
      if (differs(s)) differing.push({ ...cells[i]!, rows: s.left.count + s.right.count });
    });
  }
  const compared = differing.reduce((n, r) => n + r.rows, 0);
  for (const d of await store.differences(tenantId, left, right, whole ? null : differing)) {
    if (d.right === null) add('unmatched_left', d.key, { left: masked(d.left!, pii) });
    else if (d.left === null) add('unmatched_right', d.key, { right: masked(d.right, pii) });
    else add('breaks', d.key, { left: masked(d.left, pii), right: masked(d.right, pii) });
  }
  out.matched.count = leftCount - out.unmatched_left.count - out.breaks.count;
  // Not summed: every right key is matched, a break or unmatched on the right.
  if (whole) allRows = leftCount + out.matched.count + out.breaks.count + out.unmatched_right.count;

  const failed = out.unmatched_left.count + out.unmatched_right.count + out.breaks.count > 0;
  return {
    result: {
      name: spec.name,
      method: 'checksum_diff',
      result: failed ? 'failed' : 'passed',
      ...out,
      // Compared as one range when the sample said most cells differ.
      differing_ranges: whole ? [{ from: null, to: null, rows: allRows }] : differing,
      rows_compared: whole ? allRows : compared,
    },
    rows,
  };
}
