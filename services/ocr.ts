// The OCR service (spec 02, port 8137): REST routes (rest-compat/ocr) over one domain: tier 1
// tesseract.js with preprocessing, tier 2 a vision model when configured, tier 3 human review;
// PDFs by text layer or rendering; per-tenant cache by SHA-256; `ocr_extract` audited through
// the outbox. docs/ocr.md.
import { ServiceIdentity } from '../platform/auth/service-identity';
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens, bearerToken } from '../platform/auth/jwt';
import { databaseIsReady } from '../platform/db/database';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerOcrRoutes } from '../rest-compat/ocr';
import { loadOcrConfig } from '../subgraphs/ocr/ocr.config';
import { createOcrModule } from '../subgraphs/ocr/ocr.module';
import { serveOcrSubscriptions } from '../subgraphs/ocr/ocr.subscriptions';
import { ocrContext, type OcrGraphQLContext } from '../subgraphs/ocr/graphql.context';
import { resolvers } from '../subgraphs/ocr/resolvers';
import { serviceRetention } from '../platform/retention/retention-sweeper';
import { countQueuedOcrJobs, purgeOcrJobs } from '../subgraphs/ocr/ocr.store';
import { registerOcrQueueGauge } from '../platform/telemetry/domain-metrics';

// Nothing to override yet; the options object keeps every service's assembly one shape.
export type OcrServiceOptions = Record<string, never>;

export function defineOcrService(_options: OcrServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'ocr',
    version: '1.0.0',
    port: 8137,
    subgraph: 'subgraphs/ocr/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/api/v1/ocr/*',
        upstreamPath: '/',
        wildcard: true,
        summary: 'Proxied to the OCR service, path remainder kept',
      },
    ],
    async build(deps) {
      const { config: platform, db, env } = deps;
      // ocr.job_completed is written with each job's end (the notice outbox); this relay publishes it.
      const { bus, release: releaseBus } = await serviceBus(deps);
      if (db.kind !== 'none') registerOcrQueueGauge(() => countQueuedOcrJobs(db.sql)); // ocr_queue_jobs
      const notices = startServiceNotices(deps, bus, definition.name);
      const { ocr, engine, decoder, preprocess, sweepIntervalMs } = createOcrModule({
        db,
        env,
        identity: new ServiceIdentity(platform.auth.jwtSecret, 'ocr'),
      });
      // HTTP and graphql-ws alike: HS256 and the OIDC provider's tokens (the router forwards the caller's).
      const tokens = acceptingAsymmetric(
        new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60),
        platform.auth.oidc,
      );
      // OCR_REQUIRE_AUTH, else REQUIRE_AUTH, else a token (the platform's one rule).
      const {
        requireAuth,
        limits: { maxBytes },
      } = loadOcrConfig(env);
      const { app, schema } = await buildServiceApp<OcrGraphQLContext>(definition, deps, {
        title: 'OCR',
        description:
          'Text and key fields from scans, photos and PDFs (spec 02): tier 1 tesseract with preprocessing, tier 2 a vision model below 80% confidence, ' +
          'human review below 85%; results cached per tenant by SHA-256 of the document.',
        tokens,
        restAuth: requireAuth ? 'required' : 'optional',
        rest: (routes) => registerOcrRoutes(routes, ocr, { version: definition.version, maxBytes }),
        subgraph: {
          resolvers: resolvers as never,
          context: (caller, request) =>
            ocrContext(caller, ocr, maxBytes, bearerToken(request.headers.authorization) ?? undefined),
          uploads: { maxFileSize: maxBytes, maxFiles: 1 },
        },
        readiness: { ocr_engine: async () => engine.healthy },
        // Spec 02: /health details the OCR engine, the vision model and the database.
        health: async () => ({
          status: engine.healthy && (await databaseIsReady(db)) ? 'healthy' : 'degraded',
          ocr_engine: {
            status: engine.healthy ? 'healthy' : 'starting',
            engine: 'tesseract.js',
            workers: engine.workers,
            language: 'eng',
          },
          vision_model: ocr.visionModel
            ? { status: 'configured', model: ocr.visionModel }
            : { status: 'unconfigured', model: null, note: 'tier 2 off: set OCR_VISION_MODEL and OPENAI_API_KEY' },
          database: (await databaseIsReady(db)) ? 'healthy' : 'unavailable',
        }),
      });
      serveOcrSubscriptions({ app, schema: schema!, tokens, requireAuth, ocr, maxBytes });
      // Jobs whose process died are failed with a reason (every copy sweeps; the update is fenced).
      let sweep: NodeJS.Timeout | undefined;
      // Retention (docs/compliance.md): the tenants' ocr_job policies, enforced here.
      const retention = serviceRetention(deps, [
        { recordType: 'ocr_job', service: definition.name, purge: purgeOcrJobs },
      ]);
      return {
        app,
        async start() {
          await engine.start();
          const failInterrupted = () =>
            void ocr
              .failInterrupted()
              .catch((err: unknown) =>
                deps.logger.warn(
                  { err: (err as Error).message },
                  'ocr: the interrupted-jobs sweep failed; the next one retries',
                ),
              );
          failInterrupted();
          sweep = setInterval(failInterrupted, sweepIntervalMs);
          sweep.unref();
          retention.start();
        },
        async stop() {
          clearInterval(sweep);
          await retention.stop();
          await ocr.drain();
          await engine.stop();
          await decoder.stop();
          await preprocess.stop();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const ocrService: ServiceDefinition = defineOcrService();
