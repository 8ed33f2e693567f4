// The observability service's own settings, read once at build time.
import { serviceRequiresAuth } from '../../platform/config/platform.config';
import type { Env } from '../../platform/service';

export interface ObservabilityConfig {
  /** OBSERVABILITY_REQUIRE_AUTH, else REQUIRE_AUTH, else true (reads); the OTLP receiver is open to the platform's exporters. */
  requireAuth: boolean;
  /** OBSERVABILITY_RETENTION_HOURS (default 72): spans older than this are deleted hourly. */
  retentionMs: number;
}

export function loadObservabilityConfig(env: Env): ObservabilityConfig {
  const hours = Number(env.OBSERVABILITY_RETENTION_HOURS ?? '72');
  return {
    requireAuth: serviceRequiresAuth(env, { name: 'observability' }),
    retentionMs: (Number.isFinite(hours) && hours > 0 ? hours : 72) * 3600_000,
  };
}
