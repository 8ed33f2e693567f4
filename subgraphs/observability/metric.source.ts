// Stored series as a source for the alert evaluator: each series' latest sample within `freshMs`.
// A tenant's series carry `tenant=<its id>` (set at ingest), so a tenant rule, which adds that
// matcher, reads only its own tenant's stored series, as it does the in-process ones.
import type { MetricSource } from '../../platform/telemetry/metric-source';
import type { MetricStore } from './metric.store';
import { PLATFORM_SERIES } from './metric.types';

export function storedSource(store: MetricStore, clock: () => number = Date.now, freshMs = 5 * 60_000): MetricSource {
  return {
    async collect(names) {
      const rows = await store.latest([...names], new Date(clock() - freshMs));
      return rows.map((r) => ({
        name: r.name,
        labels: r.tenant === PLATFORM_SERIES ? r.labels : { ...r.labels, tenant: r.tenant },
        value: r.value,
      }));
    },
  };
}
