// Telemetry settings, from the OpenTelemetry SDK's own environment variables so the platform is
// configured like any other instrumented process (a Collector's docs apply as written):
//  - OTEL_SDK_DISABLED=true turns everything off, whatever else is set;
//  - OTEL_TRACES_ENABLED=true (the platform's switch) or OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on;
//  - OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT say where spans go; unset, they
//    go to the embedded observability service (OBSERVABILITY_URL, else 127.0.0.1:8096);
//  - OTEL_EXPORTER_OTLP[_TRACES]_HEADERS (`k=v,k2=v2`, values URL-encoded), _TIMEOUT (ms, default
//    10000) and _COMPRESSION (gzip | none) shape the export requests, the traces variable first;
//  - OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG are read by the SDK itself (default: parent-based, always on).
export interface TelemetryConfig {
  tracesEnabled: boolean;
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  tracesUrl: string;
  /** Extra headers of every export request (e.g. a Collector's API key). */
  tracesHeaders?: Record<string, string>;
  tracesTimeoutMillis?: number;
  tracesCompression?: 'gzip' | 'none';
}

/** A header value URL-decoded; one that is not valid URL encoding is taken as written (never a crash at start). */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `k=v,k2=v2` (W3C baggage-like, values URL-encoded) as the OTLP exporter spec reads its headers. */
function headersOf(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (key && value) out[key] = decoded(value);
  }
  return out;
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
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT?.trim() || env.OTEL_EXPORTER_OTLP_TIMEOUT?.trim());
  const compression = (
    env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION?.trim() || env.OTEL_EXPORTER_OTLP_COMPRESSION?.trim()
  )?.toLowerCase();
  return {
    tracesEnabled,
    tracesUrl,
    tracesHeaders: {
      ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    tracesTimeoutMillis: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000,
    tracesCompression: compression === 'gzip' ? 'gzip' : 'none',
  };
}
