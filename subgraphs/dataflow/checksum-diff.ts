// The checksum-and-split diff (data-diff's method, issue 33): cut both datasets into cells,
// compare each side's count and checksum per cell, and read only the cells that differ. Equal
// cells are settled without reading a row.
//
// The cells are kept at write time (dataflow_cells, one per 16-bit hash of the key, summed by a
// trigger in the writing transaction), so a diff of nearly equal datasets reads two small
// tables and the differing cells' rows: no pass over the data. When most rows lie in differing
// cells, one join compares everything instead. When a side's cells are missing (rows written
// past the trigger), the diff falls back to key ranges cut at read time: cells of about
// `cellRows` rows, one statement summing every cell's stored row checksums (one index range scan
// per cell), a sample of cells summed first to decide whether they are worth it.
//
// The differing rows are found in SQL, which returns only the keys that differ. Exact
// comparison: a key on one side only is unmatched, the same key with other data a break
// (tolerance rules need the `match` method).
import type { BreakRow, CategoryReport, PackReconciliation, ReconciliationResult } from './dataflow.types';
import type { CellSums, DatasetStore, DifferingRow, KeyRange, RangeSums } from './dataset.store';
import { DEFAULT_SAMPLE_SIZE, maskInPlace } from './reconcile.match';

export interface DiffOptions {
  /** Use the cells kept at write time when both sides have them (false: always cut key ranges). */
  useCells: boolean;
  /** Kept cells numbered below this are read first, with the totals (of 65,536: 1/64). */
  sampleBelow: number;
  /**
   * Kept cells: when the differing cells hold more than this share of the rows, compare
   * everything in one join. Low, since a kept cell's rows are scattered (a hash of the key), so
   * reading 5% of the rows by cell touches most pages a join reads once, in order.
   */
  cellShare: number;
  /** Key ranges: about how many rows (both sides) a range holds: the most rows read for one differing key. */
  cellRows: number;
  /** At most this many cells (bigger cells for bigger tables, so the sums stay a small answer). */
  maxCells: number;
  /** How many cells, evenly spread, are summed first to decide whether the cells are worth it. */
  sampleCells: number;
  /** Key ranges: when the sampled ranges differ in more than this share, compare everything in one join. */
  wholeShare: number;
}

export const DEFAULT_DIFF: DiffOptions = {
  useCells: true,
  sampleBelow: 1024,
  cellShare: 0.05,
  cellRows: 256,
  maxCells: 16_384,
  sampleCells: 32,
  wholeShare: 0.5,
};

const MIN_SAMPLED_ROWS = 1000;

type Located = Pick<ReconciliationResult, 'differing_ranges' | 'differing_cells' | 'rows_compared'>;

/** The differing rows, the left side's count, and where they were looked for. */
interface Found {
  differing: DifferingRow[];
  leftCount: number;
  located: Located;
}

export async function checksumDiff(
  store: DatasetStore,
  tenantId: string,
  spec: PackReconciliation,
  left: string,
  right: string,
  options: DiffOptions = DEFAULT_DIFF,
): Promise<{ result: ReconciliationResult; rows: BreakRow[] }> {
  const found =
    (options.useCells ? await byCells(store, tenantId, left, right, options) : null) ??
    (await byKeyRanges(store, tenantId, left, right, options));
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
  // The differing rows were parsed from the database for this diff alone: masked in place.
  for (const d of found.differing) {
    if (d.right === null) add('unmatched_left', d.key, { left: maskInPlace(d.left!, pii) });
    else if (d.left === null) add('unmatched_right', d.key, { right: maskInPlace(d.right, pii) });
    else add('breaks', d.key, { left: maskInPlace(d.left, pii), right: maskInPlace(d.right, pii) });
  }
  out.matched.count = found.leftCount - out.unmatched_left.count - out.breaks.count;
  const failed = out.unmatched_left.count + out.unmatched_right.count + out.breaks.count > 0;
  const result: ReconciliationResult = {
    name: spec.name,
    method: 'checksum_diff',
    result: failed ? 'failed' : 'passed',
    ...out,
    ...found.located,
  };
  return { result, rows };
}

/** By the cells kept at write time; null when a side's cells are missing. */
async function byCells(
  store: DatasetStore,
  tenantId: string,
  left: string,
  right: string,
  options: DiffOptions,
): Promise<Found | null> {
  const sample = await store.sampleCells(tenantId, left, right, options.sampleBelow);
  if (!sample.left || !sample.right) return null;
  const leftCount = sample.left.total.count;
  const allRows = leftCount + sample.right.total.count;
  const same = (a: CellSums | undefined, b: CellSums | undefined) =>
    (a?.count ?? 0) === (b?.count ?? 0) && (a?.sum ?? '0') === (b?.sum ?? '0');
  if (same(sample.left.total, sample.right.total)) {
    return { differing: [], leftCount, located: { differing_cells: [], rows_compared: 0 } };
  }
  const whole = async (): Promise<Found> => ({
    differing: await store.differences(tenantId, left, right, null),
    leftCount,
    // Most rows lie in differing cells: compared as one range.
    located: { differing_ranges: [{ from: null, to: null, rows: allRows }], rows_compared: allRows },
  });
  // The sampled cells (a hash of the key: a fair sample) say how many rows lie in differing cells.
  const rightSample = new Map(sample.right.cells.map((c) => [c.cell, c]));
  let sampledRows = 0;
  let differingRows = 0;
  for (const l of sample.left.cells) {
    const r = rightSample.get(l.cell);
    rightSample.delete(l.cell);
    sampledRows += l.count + (r?.count ?? 0);
    if (!same(l, r)) differingRows += l.count + (r?.count ?? 0);
  }
  for (const r of rightSample.values()) {
    sampledRows += r.count;
    if (r.count !== 0) differingRows += r.count;
  }
  // Too few sampled rows say nothing (and comparing every cell of a small dataset is cheap).
  if (sampledRows >= MIN_SAMPLED_ROWS && differingRows > options.cellShare * sampledRows) return whole();

  const compared = await store.compareCells(tenantId, left, right, options.cellShare);
  if (compared.cells === null) return whole();
  return {
    differing: await store.cellDifferences(
      tenantId,
      left,
      right,
      compared.cells.map((c) => c.cell),
    ),
    leftCount,
    located: { differing_cells: compared.cells, rows_compared: compared.differingRows },
  };
}

/** By key ranges cut and summed at read time (the rows' stored checksums, one pass). */
async function byKeyRanges(
  store: DatasetStore,
  tenantId: string,
  left: string,
  right: string,
  options: DiffOptions,
): Promise<Found> {
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
  if (whole) {
    const differing = await store.differences(tenantId, left, right, null);
    // Not summed: the right side is its matched keys, breaks and right-only keys.
    const onlyLeft = differing.filter((d) => d.right === null).length;
    const onlyRight = differing.filter((d) => d.left === null).length;
    const allRows = 2 * leftCount - onlyLeft + onlyRight;
    return {
      differing,
      leftCount,
      // Compared as one range: the sample said most cells differ.
      located: { differing_ranges: [{ from: null, to: null, rows: allRows }], rows_compared: allRows },
    };
  }
  const ranges: (KeyRange & { rows: number })[] = [];
  (await store.rangeSums(tenantId, left, right, cells)).forEach((s, i) => {
    if (differs(s)) ranges.push({ ...cells[i]!, rows: s.left.count + s.right.count });
  });
  return {
    differing: await store.differences(tenantId, left, right, ranges),
    leftCount,
    located: { differing_ranges: ranges, rows_compared: ranges.reduce((n, r) => n + r.rows, 0) },
  };
}
