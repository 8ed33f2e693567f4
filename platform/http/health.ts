// Health routes as the specs list them: /health (identity, gateway), /healthz and /livez
// (liveness), /readyz (readiness, checks the database and anything else the service depends on).
import type { FastifyInstance } from 'fastify';

export interface HealthOptions {
  /** Named readiness checks; each resolves true when its dependency answers. */
  readiness: Record<string, () => Promise<boolean>>;
  /** What a service adds to /health (e.g. OCR: its engine and vision model), merged into the answer. */
  details?: () => Promise<Record<string, unknown>>;
  /** Fields a service adds to a ready /readyz answer (the retrieval service's counts and model). */
  readinessDetails?: () => Promise<Record<string, unknown>>;
}

export function registerHealthRoutes(
  app: FastifyInstance,
  options: HealthOptions & { service: string; version: string },
): void {
  const live = async () => ({ status: 'ok', service: options.service, version: options.version });
  const hidden = { schema: { hide: true } };
  app.get('/healthz', hidden, live);
  app.get('/livez', hidden, live);
  app.get('/health', hidden, async () => ({
    status: 'healthy',
    service: options.service,
    version: options.version,
    ...(await options.details?.()),
  }));
  app.get('/readyz', hidden, async (_request, reply) => {
    const names = Object.keys(options.readiness);
    const results = await Promise.all(names.map((n) => options.readiness[n]!().catch(() => false)));
    const checks = Object.fromEntries(names.map((n, i) => [n, results[i] ? 'ok' : 'unavailable']));
    const ready = results.every(Boolean);
    const details = options.readinessDetails && ready ? await options.readinessDetails().catch(() => ({})) : {};
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, ...details });
  });
}
