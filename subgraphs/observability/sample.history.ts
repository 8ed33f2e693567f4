// The recent samples of the series alert rules read, in memory: enough for rates and ratios over
// their windows. Bounded twice: samples older than the longest window are dropped, and at most
// MAX_SERIES_PER_METRIC series are kept per metric (a label explosion cannot grow this without
// bound; the budgeted labels of platform/telemetry keep real metrics far below it).
import type { MetricSample } from '../../platform/telemetry/metric-source';
import type { Matchers } from './alert.types';

export const MAX_SERIES_PER_METRIC = 5_000;

interface Series {
  labels: Record<string, string>;
  points: { t: number; v: number }[];
}

function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function matches(labels: Record<string, string>, matchers: Matchers): boolean {
  for (const [k, v] of Object.entries(matchers)) if (labels[k] !== v) return false;
  return true;
}

export class SampleHistory {
  private readonly metrics = new Map<string, Map<string, Series>>();

  /** Adds one scrape's samples at time `t`; forgets what is older than `keepMs`. */
  record(samples: readonly MetricSample[], t: number, keepMs: number): void {
    // Same series seen twice in one pass (one process scraped on two ports): the last one counts.
    for (const s of samples) {
      let byKey = this.metrics.get(s.name);
      if (!byKey) this.metrics.set(s.name, (byKey = new Map()));
      const key = seriesKey(s.labels);
      let series = byKey.get(key);
      if (!series) {
        if (byKey.size >= MAX_SERIES_PER_METRIC) continue;
        byKey.set(key, (series = { labels: s.labels, points: [] }));
      }
      const last = series.points[series.points.length - 1];
      if (last && last.t === t) last.v = s.value;
      else series.points.push({ t, v: s.value });
    }
    const cutoff = t - keepMs;
    for (const byKey of this.metrics.values()) {
      for (const [key, series] of byKey) {
        while (series.points.length > 1 && series.points[0]!.t < cutoff) series.points.shift();
        if (series.points.length > 0 && series.points[series.points.length - 1]!.t < cutoff) byKey.delete(key);
      }
    }
  }

  /** The sum of the matching series' latest values (null: no series). */
  latestSum(metric: string, matchers: Matchers): number | null {
    let sum: number | null = null;
    for (const s of this.matching(metric, matchers)) {
      const last = s.points[s.points.length - 1];
      if (last) sum = (sum ?? 0) + last.v;
    }
    return sum;
  }

  /**
   * How much the matching counters grew since `from`, summed, and over how many seconds: per
   * series the last value minus the first within the window (a drop is a counter reset: the
   * value after it counts whole). Null when no series has two samples in the window.
   */
  increase(metric: string, matchers: Matchers, from: number): { value: number; seconds: number } | null {
    let value = 0;
    let first = Infinity;
    let last = -Infinity;
    for (const s of this.matching(metric, matchers)) {
      const pts = s.points.filter((p) => p.t >= from);
      if (pts.length < 2) continue;
      for (let i = 1; i < pts.length; i++) {
        const d = pts[i]!.v - pts[i - 1]!.v;
        value += d >= 0 ? d : pts[i]!.v;
      }
      first = Math.min(first, pts[0]!.t);
      last = Math.max(last, pts[pts.length - 1]!.t);
    }
    return last > first ? { value, seconds: (last - first) / 1000 } : null;
  }

  get seriesCount(): number {
    let n = 0;
    for (const byKey of this.metrics.values()) n += byKey.size;
    return n;
  }

  private *matching(metric: string, matchers: Matchers): Iterable<Series> {
    for (const s of this.metrics.get(metric)?.values() ?? []) if (matches(s.labels, matchers)) yield s;
  }
}
