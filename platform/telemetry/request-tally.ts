// Request metrics counted where they happen in plain fields, and read into prom-client only when
// the metrics are read (a scrape, the alert evaluator). prom-client hashes the label object on
// every inc() and observe() (sorting and joining names and values): 1.3-4 µs of a cheap request's
// ~15 µs of kernel CPU (issue 35). Here a request costs two Map lookups on strings the router
// already holds (route template, method), one on its status and a scan of the 11 bucket bounds.
// At read time the counts since the last read go to the prom-client counters (inc by the delta)
// and the duration histogram is rendered from the running totals in prom-client's own value
// format, so GET /metrics reads exactly as before (names, labels, series order).
import type { Counter, MetricObjectWithValues, MetricValueWithName } from 'prom-client';

/** One status of one route and method: its labels and its count since the last read. */
interface StatusSeries {
  labels: { method: string; route: string; status: string };
  statusCode: number;
  pending: number;
}

/** One route and method: the duration histogram's running totals and its statuses. */
interface RouteSeries {
  labels: { method: string; route: string };
  /** Observations per bound (not cumulative), as prom-client keeps them; beyond the last: none. */
  buckets: number[];
  sum: number;
  count: number;
  statuses: Map<number, StatusSeries>;
}

/** A counter's series keyed by one string, with the count since the last read. */
class PendingCounts<L extends string> {
  private readonly series = new Map<string, { labels: Record<L, string>; pending: number }>();

  constructor(private readonly labelsOf: (key: string) => Record<L, string>) {}

  add(key: string): void {
    const known = this.series.get(key);
    if (known) known.pending += 1;
    else this.series.set(key, { labels: this.labelsOf(key), pending: 1 });
  }

  flush(into: Counter<L>): void {
    for (const s of this.series.values()) {
      if (s.pending === 0) continue;
      into.inc(s.labels, s.pending);
      s.pending = 0;
    }
  }
}

export interface TallyTargets {
  requests: Counter<'method' | 'route' | 'status'>;
  errors: Counter<'method' | 'route' | 'status'>;
  rateLimited: Counter<'route'>;
  tenantRequests: Counter<'tenant'>;
  operations: Counter<'operation' | 'outcome'>;
}

export class RequestTally {
  private readonly routes = new Map<string, Map<string, RouteSeries>>();
  /** Both in the order first seen, which is the order prom-client would have listed them in. */
  private readonly routeOrder: RouteSeries[] = [];
  private readonly statusOrder: StatusSeries[] = [];
  private readonly tenants = new PendingCounts<'tenant'>((tenant) => ({ tenant }));
  private readonly operationCounts = new PendingCounts<'operation' | 'outcome'>((key) => {
    const cut = key.lastIndexOf('\n');
    return { operation: key.slice(0, cut), outcome: key.slice(cut + 1) };
  });

  constructor(readonly bounds: readonly number[]) {}

  /** A request answered: its route template, method, status and duration in seconds. */
  request(method: string, route: string, statusCode: number, seconds: number): void {
    let methods = this.routes.get(route);
    if (!methods) this.routes.set(route, (methods = new Map()));
    let series = methods.get(method);
    if (!series) {
      series = { labels: { method, route }, buckets: this.bounds.map(() => 0), sum: 0, count: 0, statuses: new Map() };
      methods.set(method, series);
      this.routeOrder.push(series);
    }
    let status = series.statuses.get(statusCode);
    if (!status) {
      status = { labels: { method, route, status: String(statusCode) }, statusCode, pending: 0 };
      series.statuses.set(statusCode, status);
      this.statusOrder.push(status);
    }
    status.pending += 1;
    series.sum += seconds;
    series.count += 1;
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= this.bounds[i]!) {
        series.buckets[i]! += 1;
        break;
      }
    }
  }

  /** A request of this tenant (already through the label budget). */
  tenant(label: string): void {
    this.tenants.add(label);
  }

  /** A GraphQL operation (its name already through the label budget) and its outcome. */
  operation(name: string, outcome: 'ok' | 'error'): void {
    this.operationCounts.add(`${name}\n${outcome}`);
  }

  /** Hands the counts since the last flush to the counters. */
  flush(into: TallyTargets): void {
    for (const s of this.statusOrder) {
      if (s.pending === 0) continue;
      into.requests.inc(s.labels, s.pending);
      if (s.statusCode >= 500) into.errors.inc(s.labels, s.pending);
      if (s.statusCode === 429) into.rateLimited.inc({ route: s.labels.route }, s.pending);
      s.pending = 0;
    }
    this.tenants.flush(into.tenantRequests);
    this.operationCounts.flush(into.operations);
  }

  /** The duration histogram's values as prom-client's Histogram gives them to a registry. */
  durationValues(name: string): MetricValueWithName<string>[] {
    const values: MetricValueWithName<string>[] = [];
    const value = (labels: Record<string, string | number>, v: number, suffix: string, s: RouteSeries) =>
      // `sharedLabels`: the series' own labels, written after `le` and the registry's defaults;
      // `exemplar` as prom-client leaves it without exemplars (null on buckets).
      values.push({
        labels,
        sharedLabels: s.labels,
        value: v,
        metricName: `${name}${suffix}`,
        exemplar: suffix === '_bucket' ? null : undefined,
      } as never);
    for (const s of this.routeOrder) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        value({ le }, cumulative, '_bucket', s);
      });
      value({ le: '+Inf' }, s.count, '_bucket', s);
      value({}, s.sum, '_sum', s);
      value({}, s.count, '_count', s);
    }
    return values;
  }

  resetDurations(): void {
    for (const s of this.routeOrder) {
      s.buckets.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

/**
 * The request duration histogram as a registry sees a prom-client Histogram (name, help, type,
 * values), its values read from a tally instead of prom-client's own hashed map.
 */
export class TalliedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames = ['method', 'route'];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly tally: RequestTally,
  ) {}

  /** What the registry writes to /metrics from (labels and sharedLabels apart, as prom-client). */
  async getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values: this.tally.durationValues(name) } as never;
  }

  /** What readers of the samples get (metric-source.ts): every label in `labels`. */
  async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const data = await this.getForPromString();
    for (const v of data.values) {
      const { sharedLabels } = v as { sharedLabels?: Record<string, string> };
      v.labels = { ...v.labels, ...sharedLabels };
      delete (v as { sharedLabels?: unknown }).sharedLabels;
    }
    return data;
  }

  reset(): void {
    this.tally.resetDurations();
  }
}
