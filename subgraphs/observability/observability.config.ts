// The observability service's own settings, read once at build time.
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface ObservabilityConfig {
  /** OBSERVABILITY_REQUIRE_AUTH, else REQUIRE_AUTH, else true (reads); the OTLP receiver is open to the platform's exporters. */
  requireAuth: boolean;
  /** OBSERVABILITY_RETENTION_HOURS (default 72): spans older than this are deleted hourly. */
  retentionMs: number;
  /** OBSERVABILITY_ALERT_EVAL_MS (default 15000): how often alert rules are evaluated; 0 = never (tests step it). */
  alertEvalMs: number;
  /** OBSERVABILITY_SCRAPE_TARGETS: base URLs whose /metrics the rules also read (services in other processes). */
  scrapeTargets: string[];
  /** OBSERVABILITY_SERIES_PER_TENANT (default 10000): metric series one tenant may hold; platform series 10x. */
  seriesPerTenant: number;
  /** OBSERVABILITY_RECORD_MS (default 15000): how often the platform's own key metrics are stored; 0 = never. */
  recordMs: number;
}

export function loadObservabilityConfig(env: Env): ObservabilityConfig {
  const hours = Number(env.OBSERVABILITY_RETENTION_HOURS ?? '72');
  const evalMs = Number(env.OBSERVABILITY_ALERT_EVAL_MS ?? '15000');
  const series = Number(env.OBSERVABILITY_SERIES_PER_TENANT ?? '10000');
  const recordMs = Number(env.OBSERVABILITY_RECORD_MS ?? '15000');
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'observability' }),
    retentionMs: (Number.isFinite(hours) && hours > 0 ? hours : 72) * 3600_000,
    alertEvalMs: Number.isInteger(evalMs) && evalMs >= 0 ? (evalMs === 0 ? 0 : Math.max(1000, evalMs)) : 15000,
    scrapeTargets: (env.OBSERVABILITY_SCRAPE_TARGETS ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => /^https?:\/\//.test(t)),
    seriesPerTenant: Number.isInteger(series) && series > 0 ? series : 10_000,
    recordMs: Number.isInteger(recordMs) && recordMs >= 0 ? (recordMs === 0 ? 0 : Math.max(1000, recordMs)) : 15000,
  };
}
