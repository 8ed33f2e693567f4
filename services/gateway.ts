// The gateway service on :8080: one Fastify app serving the federated GraphQL router
// (POST/GET /graphql, graphql-ws on the same path) and the REST gateway (/api/v1/..., /health).
import cors from '@fastify/cors';
import { redisKeyPrefix } from '../platform/config/platform.config';
import { createServiceApp } from '../platform/http/service-app';
import { defineService, type BuiltService } from '../platform/service';
import { createTokenVerifier } from '../router/auth/token-verifier';
import { BackendRegistry } from '../router/edge/backends/backend.registry';
import { corsOriginCheck } from '../router/edge/cors.policy';
import { proxyRoutesOf } from '../router/edge/proxy-routes';
import { createRateLimiter } from '../router/edge/rate-limit/rate-limiter.factory';
import { tenantConfigOf } from '../router/edge/rate-limit/tenant-config';
import { TenantRateLimits } from '../router/edge/rate-limit/tenant-rate-limits';
import { registerRestGateway } from '../router/rest-gateway';
import { createGateway } from '../router/gateway.factory';
import { loadGatewayConfig, subgraphUrl } from '../router/gateway.config';
import { createClientIpLimiter } from '../router/http/client-ip.limit';
import { mountGraphQLRoute } from '../router/graphql/graphql.route';
import { graphqlIdeEnabled } from '../router/ide/ide.config';
import { mountGraphQLIde } from '../router/ide/ide.plugin';
import { attachSubscriptionServer } from '../router/subscriptions/subscription.server';
import { supergraphFromFile } from '../router/supergraph/supergraph.source';
import type { SupergraphModel } from '../router/supergraph/supergraph.model';
import { mountConsole } from '../router/console/console.plugin';
import { loadConsoleConfig } from '../router/console/console.config';

export const gatewayService = defineService({
  name: 'gateway',
  version: '0.1.0',
  port: 8080,
  usesDatabase: false,
  async build({ config: platform, env, logger, registry, bus }): Promise<BuiltService> {
    const config = loadGatewayConfig(env, registry);
    const app = await createServiceApp({
      name: 'gateway',
      title: 'Platform gateway',
      version: '0.1.0',
      description: 'REST gateway (/api/v1) and federated GraphQL router (/graphql)',
      config: platform,
      health: { readiness: {} },
      trustedProxies: config.trustedProxies,
    });
    if (config.trustedProxies.entries.length > 0)
      logger.info({ trustedProxies: config.trustedProxies.entries }, 'X-Forwarded-For is believed from these proxies');
    // Listed origins (and, outside production, any localhost dev server) get CORS headers and
    // answered preflights (OPTIONS never needs a token); everything else none.
    const allowOrigin = corsOriginCheck(config.corsOrigins, platform.env === 'production');
    await app.register(cors, {
      origin: (origin, done) => done(null, allowOrigin(origin)),
      credentials: !config.corsOrigins.includes('*'),
      exposedHeaders: [
        'X-Correlation-ID',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        'Idempotent-Replayed',
      ],
      maxAge: 600,
    });

    const verifier = createTokenVerifier({
      strategy: config.tokenVerification,
      jwtSecret: platform.auth.jwtSecret,
      identityUrl: config.backends.identity ?? '',
      oidc: platform.auth.oidc,
      cache: config.tokenCache,
    });
    // Tenants' own limits come from the config service when one is registered (gateway.rate_limit).
    const tenantConfig = tenantConfigOf(config.backends, platform.auth.jwtSecret, bus, logger);
    const baseLimiter = createRateLimiter(config.rateLimit, platform.redisUrl, redisKeyPrefix(platform.namespace));
    const limiter = tenantConfig ? new TenantRateLimits(baseLimiter, tenantConfig) : baseLimiter;
    const ipLimiter = createClientIpLimiter(config.ipRateLimit, platform.redisUrl, redisKeyPrefix(platform.namespace));
    const backends = new BackendRegistry(config);
    await registerRestGateway(app, {
      config,
      verifier,
      limiter,
      ipLimiter,
      backends,
      routes: proxyRoutesOf(registry),
      bodyLimitBytes: platform.http.bodyLimitBytes,
    });

    let model: SupergraphModel | undefined;
    const resolveUrl = (name: string, routingUrl = model?.routingUrl(name) ?? '') =>
      subgraphUrl(config, name, routingUrl);
    const gateway = createGateway({
      supergraph: supergraphFromFile({
        file: config.supergraphPath,
        debounceMs: config.reloadDebounceMs,
        logger,
        onModel: (m) => (model = m),
      }),
      resolveUrl,
      logger,
      deduplicateQueries: config.deduplicateQueries,
      responseCacheEntries: config.responseCacheEntries,
    });
    const limits = config.graphql;
    // Error details are for a developer's own machine: never in production, whatever the flag says.
    const exposeErrorDetails = config.exposeErrorDetails && platform.env !== 'production';
    if (config.exposeErrorDetails && !exposeErrorDetails)
      logger.warn('GRAPHQL_EXPOSE_ERROR_DETAILS is ignored in production');
    const production = platform.env === 'production';
    const ide = graphqlIdeEnabled(env, production) ? mountGraphQLIde(app, { logger, ipLimiter }) : undefined;
    mountConsole(app, {
      config: loadConsoleConfig(env, production),
      identityUrl: config.backends.identity ?? '',
      refreshTokenDays: platform.auth.refreshTokenExpireDays,
      oidcIssuer: platform.auth.oidc.issuer,
      logger,
      ipLimiter,
    });
    const apollo = await mountGraphQLRoute(app, {
      gateway,
      model: () => model!,
      verifier,
      limiter,
      ipLimiter,
      limits,
      production,
      exposeErrorDetails,
      ide,
      uploads: { resolveUrl: (name) => resolveUrl(name), maxFileSize: config.maxUploadBytes, maxFiles: 10 },
    });
    const subscriptions = attachSubscriptionServer(app, {
      model: () => model!,
      verifier,
      limits,
      resolveUrl: (name) => resolveUrl(name),
      logger,
      server: () => apollo,
      limiter,
      ipLimiter,
      trustedProxies: config.trustedProxies,
      exposeErrorDetails,
    });

    // preClose, not onClose: Fastify runs onClose hooks only after the HTTP server has closed,
    // and the server waits for every upgraded socket, so a subscriber still connected would hold
    // the shutdown for ever (SIGTERM logged 'shutting down' and never 'stopped').
    app.addHook('preClose', async () => subscriptions.close());
    app.addHook('onClose', async () => {
      backends.shutdown();
      await limiter.close();
      await ipLimiter?.close();
      await tenantConfig?.stop();
    });
    return { app, start: async () => tenantConfig?.start() };
  },
});
