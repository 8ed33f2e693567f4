// DataFlow (spec 01, port 8145; issue 33): pack-defined ETL and reconciliation, triggered by
// ingestion events. REST under /api/dataflow (rest-compat/dataflow) and the subgraph at /graphql
// over one domain service (subgraphs/dataflow). Each finished reconciliation is published as
// dataflow.reconciliation_completed for the compliance service's evidence intake.
import { randomUUID } from 'node:crypto';
import { AccessTokens } from '../platform/auth/jwt';
import { DEFAULT_TENANT } from '../platform/auth/tenant.rule';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { DATAFLOW_RECONCILIATION_COMPLETED, DATAFLOW_RUN_CHANGED } from '../platform/contracts/pipeline.events';
import { contractBus } from '../platform/events/contract-bus';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerDataflowRoutes } from '../rest-compat/dataflow';
import { loadDataflowConfig, type DataflowConfig } from '../subgraphs/dataflow/dataflow.config';
import { createDataflowModule } from '../subgraphs/dataflow/dataflow.module';
import { dataflowContext, type DataflowGraphQLContext } from '../subgraphs/dataflow/graphql.context';
import { consumeIngestion } from '../subgraphs/dataflow/ingestion.consumer';
import { resolvers } from '../subgraphs/dataflow/resolvers';
import { serveDataflowSubscriptions } from '../subgraphs/dataflow/dataflow.subscriptions';
import { ScheduleRunner } from '../subgraphs/dataflow/schedule.runner';
import { ensureSandboxRole } from '../subgraphs/dataflow/sql.transform';

export interface DataflowServiceOptions {
  config?: Partial<DataflowConfig>;
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** The ingestion consumer's fallback poll and retry backoff (tests). */
  consumer?: { pollMs?: number; backoffMs?: number };
  /** The schedule runner's clock (tests move it). */
  now?: () => Date;
}

export function defineDataflowService(options: DataflowServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'dataflow',
    version: '0.1.0',
    port: 8145,
    subgraph: 'subgraphs/dataflow/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST'],
        url: '/api/v1/dataflow/*',
        upstreamPath: '/api/dataflow/',
        wildcard: true,
        summary: 'DataFlow runs, breaks, evidence and staged datasets (dataflow /api/dataflow/...)',
      },
    ],
    async build(deps) {
      const { config: platform, db, env, logger, registry } = deps;
      const config = { ...loadDataflowConfig(env, registry), ...options.config };
      const { bus, release } = await serviceBus(deps, options.bus);
      const events = contractBus(bus, logger);
      await ensureSandboxRole(db.sql);
      const { service, runs, packs } = createDataflowModule(
        db.sql,
        config,
        new ServiceIdentity(platform.auth.jwtSecret, 'dataflow'),
        async (run) => {
          for (const r of run.result?.reconciliations ?? [])
            await events
              .publish(DATAFLOW_RECONCILIATION_COMPLETED, {
                tenant_id: run.tenantId,
                run_id: run.id,
                pack_id: run.packId,
                pack_version: run.packVersion,
                reconciliation: r.name,
                result: r.result,
                matched: r.matched.count,
                unmatched_left: r.unmatched_left.count,
                unmatched_right: r.unmatched_right.count,
                breaks: r.breaks.count,
                result_sha256: run.result!.evidence_sha256,
                at: (run.finishedAt ?? new Date()).toISOString(),
              })
              .catch((err: unknown) => logger.warn({ err, run: run.id }, 'reconciliation notice not published'));
        },
        // Only a wake-up for dataflowRunProgress (the feed reads the run): a lost one is caught up by the next.
        (run) =>
          events
            .publish(DATAFLOW_RUN_CHANGED, { tenant_id: run.tenantId, run_id: run.id, status: run.status })
            .catch((err: unknown) => logger.warn({ err, run: run.id }, 'run notice not published')),
      );
      const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);
      const { app, schema } = await buildServiceApp<DataflowGraphQLContext>(definition, deps, {
        title: 'DataFlow',
        description:
          'Pack-defined ETL and reconciliation (issue 33): certified dataflow packs run on ingestion events, from a workflow ' +
          'step or on demand; JSONata and sandboxed SQL transforms; key matching with tolerance rules and the checksum-and-split ' +
          'diff; breaks with PII masked; hashed evidence of every run. Errors use FastAPI shapes.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerDataflowRoutes(routes, service),
        subgraph: { resolvers, context: (caller, request) => dataflowContext(caller, request, service) },
      });
      serveDataflowSubscriptions({
        app,
        schema: schema!,
        bus,
        service,
        runs,
        tokens,
        requireAuth: config.requireAuth,
      });
      // Scheduled packs run in their owner tenant; the registry is asked with a tenant delegate's token.
      const schedules = new ScheduleRunner({
        scheduled: () => packs.scheduled({ tenantId: DEFAULT_TENANT, correlationId: randomUUID() }),
        run: (tenantId, pack, key) => service.onSchedule(tenantId, pack, key, randomUUID()),
        now: options.now ?? (() => new Date()),
        pollMs: config.schedulePollMs,
        logger,
      });
      let stopConsumer: (() => Promise<void>) | undefined;
      return {
        app,
        async start() {
          // ingestion.completed from the backbone (durable, every tenant's stream): one run per batch and pack.
          stopConsumer = await consumeIngestion(db, service, { bus, logger, ...options.consumer });
          if (config.schedulePollMs > 0) schedules.start();
        },
        async stop() {
          await schedules.stop();
          await stopConsumer?.();
          await release();
        },
      };
    },
  });
  return definition;
}

export const dataflowService: ServiceDefinition = defineDataflowService();
