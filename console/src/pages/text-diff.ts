// A line diff (longest common subsequence) between two texts, for a rule pack against its
// previous version. Packs are small (a few hundred lines), so the quadratic table is fine.
export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) {
      out.push({ kind: 'removed', text: a[i++]! });
    } else {
      out.push({ kind: 'added', text: b[j++]! });
    }
  }
  while (i < a.length) out.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'added', text: b[j++]! });
  return out;
}

/** Semantic versions compared numerically part by part (1.10.0 after 1.9.0). */
export function compareVersions(x: string, y: string): number {
  const px = x.split(/[.+-]/).map((n) => Number.parseInt(n, 10) || 0);
  const py = y.split(/[.+-]/).map((n) => Number.parseInt(n, 10) || 0);
  for (let k = 0; k < Math.max(px.length, py.length); k++) {
    const d = (px[k] ?? 0) - (py[k] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
