// Where the alert evaluator reads metric samples from (docs/observability.md "Alerts"):
// - in-process: every prom-client registry of this process (under `npm start` all services share
//   one process, so this sees the whole platform, with no HTTP and no parsing);
// - scraped: GET <target>/metrics of services running elsewhere (OBSERVABILITY_SCRAPE_TARGETS),
//   read with the Prometheus text reader. A target that fails contributes nothing this pass.
// Samples are the current values; the evaluator keeps their history for rates and ratios.
import { allRegistries } from './metrics';
import { parsePrometheusText } from './prometheus-text';

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricSource {
  /** The current samples of the metrics named (others may be left out). */
  collect(names: ReadonlySet<string>): Promise<MetricSample[]>;
}

/** A histogram's (or summary's) series: `<name>_bucket`, `_sum`, `_count`. */
const SUFFIXES = ['_bucket', '_sum', '_count'];

/** The registries of this process. */
export function inProcessSource(): MetricSource {
  return {
    async collect(names) {
      const samples: MetricSample[] = [];
      for (const { registry, labels: defaults } of allRegistries()) {
        for (const metric of registry.getMetricsAsArray()) {
          // Only the metrics asked for are read: a gauge's collect() may query the database.
          const base = metric.name;
          if (!names.has(base) && !SUFFIXES.some((s) => names.has(base + s))) continue;
          const live = registry.getSingleMetric(base);
          if (!live) continue;
          for (const v of (await live.get()).values) {
            const name = (v as { metricName?: string }).metricName ?? metric.name;
            if (!names.has(name)) continue;
            const labels: Record<string, string> = { ...defaults };
            for (const [k, l] of Object.entries(v.labels)) labels[k] = String(l);
            samples.push({ name, labels, value: v.value });
          }
        }
      }
      return samples;
    },
  };
}

/** GET <target>/metrics for each target (a base URL), with a timeout. */
export function scrapeSource(targets: readonly string[], timeoutMs = 5000): MetricSource {
  return {
    async collect(names) {
      const bodies = await Promise.all(
        targets.map((t) =>
          fetch(new URL('/metrics', t), { signal: AbortSignal.timeout(timeoutMs) })
            .then((r) => (r.ok ? r.text() : ''))
            .catch(() => ''),
        ),
      );
      return bodies.flatMap((b) => parsePrometheusText(b).filter((s) => names.has(s.name)));
    },
  };
}

/** Several sources as one. */
export function combinedSource(sources: readonly MetricSource[]): MetricSource {
  return {
    async collect(names) {
      return (await Promise.all(sources.map((s) => s.collect(names)))).flat();
    },
  };
}
