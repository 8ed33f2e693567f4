// Telemetry settings, from the OpenTelemetry SDK's own environment variables so the platform is
// configured like any other instrumented process (a Collector's docs apply as written):
//  - OTEL_SDK_DISABLED=true turns everything off, whatever else is set;
//  - OTEL_TRACES_ENABLED=true (the platform's switch) or OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on;
//  - OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT say where spans go; unset, they
//    go to the embedded observability service (OBSERVABILITY_URL, else 127.0.0.1:8096);
//  - OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG are read by the SDK itself (default: parent-based, always on).
export interface TelemetryConfig {
  tracesEnabled: boolean;
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  tracesUrl: string;
}

const truthy = (v: string | undefined) =>
  v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());

export function loadTelemetryConfig(env: NodeJS.ProcessEnv): TelemetryConfig {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
    (base
      ? `${base.replace(/\/$/, '')}/v1/traces`
      : `${(env.OBSERVABILITY_URL?.trim() || `http://127.0.0.1:${env.OBSERVABILITY_PORT?.trim() || '8096'}`).replace(/\/$/, '')}/v1/traces`);
  const tracesEnabled = !truthy(env.OTEL_SDK_DISABLED) && (truthy(env.OTEL_TRACES_ENABLED) || Boolean(base));
  return { tracesEnabled, tracesUrl };
}
