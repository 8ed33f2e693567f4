// GET /api/v1/services: every backend the gateway knows, with its URL, the version it reports,
// live health (its /healthz, probed now with a short timeout) and its circuit-breaker state.
import type { BackendRegistry, BreakerState } from '../backends/backend.registry';

export interface ServiceStatus {
  name: string;
  url: string;
  version: string | null;
  status: 'healthy' | 'unhealthy' | 'unreachable';
  breaker: BreakerState;
}

export async function discoverServices(backends: BackendRegistry, probeTimeoutMs = 1_000): Promise<ServiceStatus[]> {
  return Promise.all(
    backends.list().map(async (b) => {
      const base = { name: b.name, url: b.url, breaker: b.state() };
      try {
        const res = await fetch(new URL('/healthz', b.url), { signal: AbortSignal.timeout(probeTimeoutMs) });
        const body = (await res.json().catch(() => ({}))) as { version?: unknown };
        return {
          ...base,
          version: typeof body.version === 'string' ? body.version : null,
          status: res.ok ? ('healthy' as const) : ('unhealthy' as const),
        };
      } catch {
        return { ...base, version: null, status: 'unreachable' as const };
      }
    }),
  );
}
