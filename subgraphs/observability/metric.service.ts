// Metrics received and queried (docs/observability.md "Metrics received"): OTLP/HTTP JSON in,
// each tenant held to its series budget; a series query over one metric, bounded in time, points
// and series. Reads follow the tenant rule (TenantAccess): a caller reads its own tenant's series;
// platform series (no tenant) are for platform operators.
import { isPlatformOperator } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ForbiddenError, InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { Matchers } from './alert.types';
import type { MetricStore, StoredPoint } from './metric.store';
import { METRIC_LIMITS, PLATFORM_SERIES, type MetricSeries, type SeriesQuery } from './metric.types';
import { decodeOtlpMetrics } from './otlp-metrics.decode';

export interface SeriesBudget {
  /** Series one tenant may hold. */
  perTenant: number;
  /** Series the platform (points with no tenant) may hold. */
  platform: number;
}

const issue = (loc: string, msg: string): InputIssue => ({ loc: [loc], msg, type: 'value_error' });

export class MetricService {
  constructor(
    private readonly store: MetricStore,
    private readonly access: TenantAccess,
    private readonly budget: SeriesBudget,
    private readonly clock: () => number = Date.now,
  ) {}

  /** OTLP/HTTP JSON in; answers how many points were stored and how many the budget dropped. */
  async ingest(body: unknown): Promise<{ accepted: number; rejected: number }> {
    const points = decodeOtlpMetrics(body);
    const { rejected } = await this.store.insert(points, (t) =>
      t === PLATFORM_SERIES ? this.budget.platform : this.budget.perTenant,
    );
    return { accepted: points.length - rejected, rejected };
  }

  async series(caller: Caller, q: SeriesQuery & { tenantId?: string }): Promise<MetricSeries[]> {
    const auth = requireAuth(caller);
    let tenant = await this.access.resolve(caller, q.tenantId, ['tenant_id'], 'observability.read');
    if (q.scope === 'platform') {
      if (!isPlatformOperator(auth)) throw new ForbiddenError('Platform series need the platform-admin role');
      tenant = PLATFORM_SERIES;
    }
    const issues: InputIssue[] = [];
    if (q.scope !== undefined && q.scope !== 'tenant' && q.scope !== 'platform')
      issues.push(issue('scope', "Input should be 'tenant' or 'platform'"));
    if (!q.metric || q.metric.length > METRIC_LIMITS.nameLength)
      issues.push(issue('metric', 'A metric name is required'));
    const matchers = q.matchers ?? {};
    if (
      typeof matchers !== 'object' ||
      Array.isArray(matchers) ||
      Object.values(matchers).some((v) => typeof v !== 'string')
    )
      issues.push(issue('matchers', 'Matchers should be an object of strings'));
    const to = q.to === undefined ? this.clock() : Date.parse(q.to);
    const from = q.from === undefined ? to - 3600_000 : Date.parse(q.from);
    if (Number.isNaN(to)) issues.push(issue('to', 'Input should be an ISO 8601 time'));
    if (Number.isNaN(from)) issues.push(issue('from', 'Input should be an ISO 8601 time'));
    else if (to - from > METRIC_LIMITS.maxWindowMs || to <= from)
      issues.push(issue('from', 'The window must be at most 7 days, from before to'));
    const step = q.stepSeconds ?? Math.max(1, Math.ceil((to - from) / 1000 / 120));
    if (!Number.isInteger(step) || step < 1)
      issues.push(issue('step_seconds', 'Input should be a whole number of seconds'));
    else if ((to - from) / 1000 / step > METRIC_LIMITS.maxPointsPerSeries)
      issues.push(
        issue('step_seconds', `At most ${METRIC_LIMITS.maxPointsPerSeries} points per series: widen the step`),
      );
    if (issues.length > 0) throw new InputError(issues);
    const rows = await this.store.points(tenant, {
      metric: q.metric,
      matchers: matchers as Matchers,
      from: new Date(from),
      to: new Date(to),
      stepSeconds: step,
      maxSeries: METRIC_LIMITS.maxSeriesPerQuery,
    });
    const series = groupSeries(q.metric, rows, step, q.rate === true);
    if (series.length > METRIC_LIMITS.maxSeriesPerQuery)
      throw new InputError([
        issue('matchers', `More than ${METRIC_LIMITS.maxSeriesPerQuery} series match: narrow the matchers`),
      ]);
    return series;
  }

  /** Retention: samples older than `retainMs` go, and series with none left. */
  prune(retainMs: number): Promise<number> {
    return this.store.prune(new Date(this.clock() - retainMs));
  }
}

/**
 * Rows (series id order, step order) to series. With `rate`, each point is the per-second increase
 * since the previous step that has a value; a drop is a counter reset (the value after it counts whole).
 */
export function groupSeries(metric: string, rows: readonly StoredPoint[], step: number, rate: boolean): MetricSeries[] {
  const out: MetricSeries[] = [];
  let current: { id: string; series: MetricSeries; prev?: StoredPoint } | undefined;
  for (const r of rows) {
    if (current?.id !== r.seriesId) {
      current = { id: r.seriesId, series: { metric, labels: r.labels, points: [] } };
      out.push(current.series);
    }
    const t = new Date(r.bucket * step * 1000).toISOString();
    if (!rate) current.series.points.push({ t, v: r.value });
    else if (current.prev) {
      const d = r.value - current.prev.value;
      current.series.points.push({ t, v: (d >= 0 ? d : r.value) / ((r.bucket - current.prev.bucket) * step) });
    }
    current.prev = r;
  }
  return out;
}
