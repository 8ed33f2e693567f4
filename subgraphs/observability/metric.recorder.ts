// The platform's own key metrics into the metric store, as Prometheus would scrape them: every
// OBSERVABILITY_RECORD_MS the evaluator's source (this process's registries, plus the scrape
// targets) is read for RECORDED_METRICS and written as samples at that time. Series with a
// `tenant` label are that tenant's (within its budget); the rest are platform series. This is what
// the console's dashboards draw; at scale Prometheus does this job (docs/observability.md).
import type { MetricSource } from '../../platform/telemetry/metric-source';
import type { MetricStore } from './metric.store';
import { PLATFORM_SERIES, type MetricPoint } from './metric.types';
import type { SeriesBudget } from './metric.service';

/** Request rate, errors and latency (mean from _sum/_count: buckets would be ~15x the series), per tenant. */
export const RECORDED_METRICS: ReadonlySet<string> = new Set([
  'http_requests_total',
  'http_request_errors_total',
  'http_request_duration_seconds_sum',
  'http_request_duration_seconds_count',
  'graphql_operations_total',
  'tenant_requests_total',
  'rate_limit_rejections_total',
]);

export async function recordPlatformMetrics(
  source: MetricSource,
  store: MetricStore,
  budget: SeriesBudget,
  now: number,
): Promise<{ stored: number; rejected: number }> {
  const points: MetricPoint[] = (await source.collect(RECORDED_METRICS)).map((s) => ({
    tenant: s.labels.tenant ?? PLATFORM_SERIES,
    name: s.name,
    labels: s.labels,
    time: now,
    value: s.value,
  }));
  const { rejected } = await store.insert(points, (t) => (t === PLATFORM_SERIES ? budget.platform : budget.perTenant));
  return { stored: points.length - rejected, rejected };
}
