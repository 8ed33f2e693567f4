// The observability service (spec 01, port 8096: logs, metrics, traces, alert definitions):
// an OTLP/HTTP receiver storing spans in the platform database with retention, and trace
// queries over REST and the subgraph (docs/observability.md). Alert rules: not yet.
import { AccessTokens } from '../platform/auth/jwt';
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
      const { traces } = createObservabilityModule(deps.db);
      const { app } = await buildServiceApp<ObservabilityGraphQLContext>(definition, deps, {
        title: 'Observability',
        description:
          'Traces of the platform (issue 31): an OTLP/HTTP JSON receiver at /v1/traces, a trace by id and a span search ' +
          "within the caller's tenant (another tenant's trace is 404), bounded windows and sizes. Errors use FastAPI shapes.",
        tokens: new AccessTokens(deps.config.auth.jwtSecret, deps.config.auth.accessTokenExpireMinutes * 60),
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerObservabilityRoutes(routes, traces),
        subgraph: { resolvers, context: (caller) => observabilityContext(caller, traces) },
      });
      let timer: NodeJS.Timeout | undefined;
      return {
        app,
        async start() {
          // Retention, hourly (and once at start).
          const prune = () =>
            traces
              .prune(config.retentionMs)
              .catch((err: unknown) => deps.logger.warn({ err: (err as Error).message }, 'span retention failed'));
          void prune();
          timer = setInterval(prune, 3600_000);
          timer.unref();
        },
        async stop() {
          if (timer) clearInterval(timer);
        },
      };
    },
  });
  return definition;
}

export const observabilityService: ServiceDefinition = defineObservabilityService();
