// OTLP/HTTP JSON (ExportMetricsServiceRequest) to metric points: gauge and sum points as one
// series each, histogram points as Prometheus does (`<name>_bucket{le}` cumulative, `_sum`,
// `_count`). The point's tenant is its `tenant` or `platform.tenant_id` attribute, else the
// resource's `platform.tenant_id`, else none (a platform series). The resource's `service.name`
// becomes the `service` label when the point has none. Label values pass the redactor. Anything
// malformed is an InputError naming where: the receiver answers 422, never 500.
import { InputError } from '../../platform/errors/domain-errors';
import { redactValue } from '../../platform/redaction';
import { METRIC_LIMITS, PLATFORM_SERIES, type MetricPoint } from './metric.types';

type Json = Record<string, unknown>;

const bad = (loc: string, msg: string) => new InputError([{ loc: [loc], msg, type: 'value_error' }]);
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:.]*$/;

function scalar(v: unknown): string | null {
  if (!v || typeof v !== 'object') return null;
  const a = v as Json;
  for (const k of ['stringValue', 'intValue', 'doubleValue', 'boolValue'])
    if (a[k] !== undefined && a[k] !== null) return String(a[k]);
  return null;
}

function attributesOf(list: unknown, loc: string): Record<string, string> {
  if (list === undefined) return {};
  if (!Array.isArray(list)) throw bad(loc, 'Attributes should be a list');
  if (list.length > METRIC_LIMITS.labelsPerPoint) throw bad(loc, `At most ${METRIC_LIMITS.labelsPerPoint} attributes`);
  const out: Record<string, string> = {};
  for (const kv of list as Json[]) {
    if (!kv || typeof kv.key !== 'string' || kv.key === '') throw bad(loc, 'An attribute needs a key');
    const value = scalar(kv.value);
    if (value !== null)
      out[kv.key.slice(0, METRIC_LIMITS.labelNameLength)] = String(redactValue(value)).slice(
        0,
        METRIC_LIMITS.labelValueLength,
      );
  }
  return out;
}

function timeOf(value: unknown, loc: string): number {
  if ((typeof value !== 'string' && typeof value !== 'number') || !/^\d{1,20}$/.test(String(value)))
    throw bad(loc, 'Should be nanoseconds since the epoch');
  return Number(BigInt(value) / 1_000_000n);
}

function numberOf(p: Json, loc: string): number {
  const v = p.asDouble ?? p.asInt;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n)) throw bad(loc, 'A data point needs asDouble or asInt');
  return n;
}

function pointsOf(m: Json): { kind: 'gauge' | 'sum' | 'histogram'; points: Json[] } | null {
  for (const kind of ['gauge', 'sum', 'histogram'] as const) {
    const data = m[kind] as { dataPoints?: unknown } | undefined;
    if (data && typeof data === 'object') {
      if (!Array.isArray(data.dataPoints)) throw bad(`${kind}.dataPoints`, 'Should be a list');
      return { kind, points: data.dataPoints as Json[] };
    }
  }
  return null; // exponential histograms and summaries are not stored (docs: "Not done")
}

export function decodeOtlpMetrics(body: unknown): MetricPoint[] {
  const resourceMetrics = (body as { resourceMetrics?: unknown } | null)?.resourceMetrics;
  if (!body || typeof body !== 'object' || !Array.isArray(resourceMetrics))
    throw bad('resourceMetrics', 'An ExportMetricsServiceRequest needs resourceMetrics');
  const out: MetricPoint[] = [];
  const push = (p: MetricPoint) => {
    if (out.length >= METRIC_LIMITS.pointsPerRequest)
      throw bad('resourceMetrics', `At most ${METRIC_LIMITS.pointsPerRequest} data points per request`);
    out.push(p);
  };
  for (const rm of resourceMetrics as Json[]) {
    const resource = attributesOf((rm?.resource as Json | undefined)?.attributes, 'resource.attributes');
    const scopes = Array.isArray(rm?.scopeMetrics) ? (rm.scopeMetrics as Json[]) : [];
    for (const sm of scopes) {
      for (const m of (Array.isArray(sm?.metrics) ? sm.metrics : []) as Json[]) {
        if (typeof m?.name !== 'string' || m.name.length > METRIC_LIMITS.nameLength - 8 || !NAME.test(m.name))
          throw bad('metric.name', 'A metric needs a name of letters, digits, _ : .');
        const name = m.name.replace(/\./g, '_');
        const data = pointsOf(m);
        if (!data) continue;
        for (const p of data.points) {
          if (!p || typeof p !== 'object') throw bad(`${data.kind}.dataPoints`, 'A data point should be an object');
          const attrs = attributesOf(p.attributes, 'dataPoint.attributes');
          const tenant =
            attrs.tenant ?? attrs['platform.tenant_id'] ?? resource['platform.tenant_id'] ?? PLATFORM_SERIES;
          const labels: Record<string, string> = { ...attrs };
          delete labels['platform.tenant_id'];
          if (tenant !== PLATFORM_SERIES) labels.tenant = tenant;
          if (labels.service === undefined && resource['service.name'] !== undefined)
            labels.service = resource['service.name'];
          const time = timeOf(p.timeUnixNano, 'dataPoint.timeUnixNano');
          const point = (n: string, l: Record<string, string>, value: number) =>
            push({ tenant: tenant.slice(0, 255), name: n, labels: l, time, value });
          if (data.kind !== 'histogram') {
            point(name, labels, numberOf(p, 'dataPoint.value'));
            continue;
          }
          const bounds = Array.isArray(p.explicitBounds) ? (p.explicitBounds as unknown[]).map(Number) : [];
          const counts = Array.isArray(p.bucketCounts) ? (p.bucketCounts as unknown[]).map(Number) : [];
          if (counts.some((c) => !Number.isFinite(c)) || bounds.some((b) => !Number.isFinite(b)))
            throw bad('dataPoint.bucketCounts', 'Bucket counts and bounds should be numbers');
          if (counts.length > 0 && counts.length !== bounds.length + 1)
            throw bad('dataPoint.bucketCounts', 'There should be one more bucket count than bounds');
          let cumulative = 0;
          counts.forEach((c, i) => {
            cumulative += c;
            point(`${name}_bucket`, { ...labels, le: i < bounds.length ? String(bounds[i]) : '+Inf' }, cumulative);
          });
          point(`${name}_count`, labels, Number(p.count ?? cumulative));
          if (p.sum !== undefined) point(`${name}_sum`, labels, Number(p.sum));
        }
      }
    }
  }
  return out;
}
