// The observability service (spec 01, port 8096: logs, metrics, traces, alert definitions):
// OTLP/HTTP receivers storing spans and metric samples in the platform database with retention
// (metric series within a per-tenant budget), metric-series queries, and trace
// queries over REST and the subgraph, alert rules evaluated every OBSERVABILITY_ALERT_EVAL_MS
// over the platform's metrics, silences, and the alerts' notices relayed to the tenants' event
// streams and webhooks (docs/observability.md).
import { AccessTokens } from '../platform/auth/jwt';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerObservabilityRoutes } from '../rest-compat/observability';
import { observabilityContext, type ObservabilityGraphQLContext } from '../subgraphs/observability/graphql.context';
import { loadObservabilityConfig, type ObservabilityConfig } from '../subgraphs/observability/observability.config';
import { createObservabilityModule } from '../subgraphs/observability/observability.module';
import { resolvers } from '../subgraphs/observability/resolvers';

export interface ObservabilityServiceOptions {
  /** Settings over the environment's (tests). */
  config?: Partial<ObservabilityConfig>;
}

export function defineObservabilityService(options: ObservabilityServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'observability',
    version: '0.1.0',
    port: 8096,
    subgraph: 'subgraphs/observability/schema.graphql',
    producesAudit: true,
    async build(deps) {
      const config = { ...loadObservabilityConfig(deps.env), ...options.config };
      const { traces, alerts, evaluator, metrics, record } = createObservabilityModule(deps.db, {
        scrapeTargets: config.scrapeTargets,
        seriesPerTenant: config.seriesPerTenant,
      });
      // observability.alert notices: this relay appends them to the tenant's stream and queues
      // them for its webhooks (the events service's worker sends those).
      const { bus, release: releaseBus } = await serviceBus(deps);
      const notices = startServiceNotices(deps, bus, definition.name);
      const { app } = await buildServiceApp<ObservabilityGraphQLContext>(definition, deps, {
        title: 'Observability',
        description:
          'Traces and metrics of the platform (issue 31): OTLP/HTTP JSON receivers at /v1/traces and /v1/metrics, ' +
          'metric series (each tenant within a series budget), a trace by id and a span search ' +
          "within the caller's tenant (another tenant's trace is 404), bounded windows and sizes. Errors use FastAPI shapes.",
        tokens: new AccessTokens(deps.config.auth.jwtSecret, deps.config.auth.accessTokenExpireMinutes * 60),
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerObservabilityRoutes(routes, traces, alerts, metrics),
        subgraph: { resolvers, context: (caller) => observabilityContext(caller, traces, alerts, metrics) },
      });
      let timer: NodeJS.Timeout | undefined;
      let evalTimer: NodeJS.Timeout | undefined;
      let recordTimer: NodeJS.Timeout | undefined;
      let recording: Promise<unknown> | undefined;
      let evaluating: Promise<unknown> | undefined;
      return {
        app,
        async start() {
          // Retention, hourly (and once at start).
          const prune = () =>
            Promise.all([traces.prune(config.retentionMs), metrics.prune(config.retentionMs)]).catch((err: unknown) =>
              deps.logger.warn({ err: (err as Error).message }, 'span and sample retention failed'),
            );
          void prune();
          timer = setInterval(prune, 3600_000);
          timer.unref();
          if (config.alertEvalMs > 0) {
            // One pass at a time: a slow pass (a scrape timing out) skips the next tick, never overlaps it.
            evalTimer = setInterval(() => {
              evaluating ??= evaluator
                .evaluate(Date.now())
                .then((r) => r.notifications.length > 0 && notices.wake())
                .catch((err: unknown) => deps.logger.warn({ err: (err as Error).message }, 'alert evaluation failed'))
                .finally(() => (evaluating = undefined));
            }, config.alertEvalMs);
            evalTimer.unref();
          }
          if (config.recordMs > 0) {
            recordTimer = setInterval(() => {
              recording ??= record(Date.now())
                .catch((err: unknown) => deps.logger.warn({ err: (err as Error).message }, 'metric recording failed'))
                .finally(() => (recording = undefined));
            }, config.recordMs);
            recordTimer.unref();
          }
        },
        async stop() {
          if (timer) clearInterval(timer);
          if (evalTimer) clearInterval(evalTimer);
          if (recordTimer) clearInterval(recordTimer);
          await evaluating;
          await recording;
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const observabilityService: ServiceDefinition = defineObservabilityService();
