// The compliance scanner (spec 01, port 8140; issue 34): runs certified, signed scanner packs
// (CEL or pattern rules) over repositories inside SCANNER_ALLOWED_ROOTS and over the platform's
// configuration, samples data assets (ingestion batches, retrieval documents) for unmasked PII,
// keeps findings with stable fingerprints through open/fixed/suppressed/reopened, reports in
// SARIF 2.1.0, and takes suppressions through a workflow approval by a second person, expiring
// on their date. Findings reach the compliance service as `scanner.finding` notices on
// the backbone. REST under /api/scanner/... and the subgraph at /graphql over one domain.
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { ComplianceClient } from '../platform/clients/compliance.client';
import { ConfigClient } from '../platform/clients/config.client';
import { IngestionClient } from '../platform/clients/ingestion.client';
import { RetrievalClient } from '../platform/clients/retrieval.client';
import { WorkflowClient } from '../platform/clients/workflow.client';
import { CONFIG_CHANGED } from '../platform/contracts/config.events';
import { INGESTION_COMPLETED, SCANNER_SCAN_CHANGED } from '../platform/contracts/pipeline.events';
import { contractBus } from '../platform/events/contract-bus';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerComplianceScannerRoutes } from '../rest-compat/compliance-scanner';
import {
  loadComplianceScannerConfig,
  type ScannerConfig,
} from '../subgraphs/compliance-scanner/compliance-scanner.config';
import { createScannerModule } from '../subgraphs/compliance-scanner/compliance-scanner.module';
import {
  complianceScannerContext,
  type ComplianceScannerGraphQLContext,
} from '../subgraphs/compliance-scanner/graphql.context';
import { resolvers } from '../subgraphs/compliance-scanner/resolvers';
import { serveScannerSubscriptions } from '../subgraphs/compliance-scanner/compliance-scanner.subscriptions';
import type { ScanEventTrigger } from '../subgraphs/compliance-scanner/scanner.types';

export interface ComplianceScannerServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Settings over the environment's (tests). */
  config?: Partial<ScannerConfig>;
  /** The clock of expiries (tests). */
  now?: () => Date;
}

export function defineComplianceScannerService(options: ComplianceScannerServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'compliance-scanner',
    version: '0.1.0',
    port: 8140,
    subgraph: 'subgraphs/compliance-scanner/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST', 'DELETE'],
        url: '/api/scanner/*',
        upstreamPath: '/api/scanner/',
        wildcard: true,
        summary: 'Scanner packs, targets, scans, findings (SARIF) and suppressions (compliance scanner)',
      },
    ],
    async build(deps) {
      const { config: platform, db, env, logger, registry } = deps;
      const config = { ...loadComplianceScannerConfig(env, registry), ...options.config };
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // scanner.finding notices are written with each scan's changes and published by this relay.
      const notices = startServiceNotices(deps, bus, definition.name);
      const events = contractBus(bus, logger);
      const identity = new ServiceIdentity(platform.auth.jwtSecret, definition.name);
      const scanner = createScannerModule({
        db,
        config,
        workflow: new WorkflowClient(config.workflowUrl, identity),
        configService: new ConfigClient(config.configUrl, identity),
        ingestion: new IngestionClient(config.ingestionUrl, identity),
        retrieval: new RetrievalClient(config.retrievalUrl, undefined, identity),
        compliance: new ComplianceClient(config.complianceUrl, identity),
        onCommitted: () => notices.wake(),
        // Only a wake-up for scannerScanProgress (the feed reads the scan): a lost one is caught up by the next.
        onScanChanged: (tenantId, scanId, status) =>
          void events
            .publish(SCANNER_SCAN_CHANGED, { tenant_id: tenantId, scan_id: scanId, status })
            .catch((err: unknown) => logger.warn({ err, scan: scanId }, 'scan notice not published')),
        now: options.now,
        logger,
      });
      const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);
      const { app, schema } = await buildServiceApp<ComplianceScannerGraphQLContext>(definition, deps, {
        title: 'Compliance scanner',
        description:
          'Compliance scanner (spec 01, port 8140): certified, signed scanner packs (CEL with a cost limit, or patterns) over ' +
          'repositories inside SCANNER_ALLOWED_ROOTS and the platform configuration; findings with stable fingerprints, ' +
          'SARIF 2.1.0 reports, suppressions approved by a second person through a workflow and expiring. Errors use FastAPI shapes.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerComplianceScannerRoutes(routes, scanner),
        subgraph: { resolvers, context: (caller, request) => complianceScannerContext(caller, request, scanner) },
      });
      serveScannerSubscriptions({
        app,
        schema: schema!,
        bus,
        scanner,
        sql: db.sql,
        tokens,
        requireAuth: config.requireAuth,
      });
      let sweep: NodeJS.Timeout | undefined;
      let sweeping: Promise<unknown> = Promise.resolve();
      let ticker: NodeJS.Timeout | undefined;
      const unsubscribe: (() => Promise<void>)[] = [];
      // An event's scans run beside the bus's delivery, not inside it; stop waits for them.
      const inFlight = new Set<Promise<unknown>>();
      const onEvent = (event: ScanEventTrigger, tenantId: string | null) => {
        const work = scanner.scheduler
          .onEvent(event, tenantId)
          .catch((err: unknown) => logger.warn({ err, event }, 'event-triggered scans failed'))
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      };
      return {
        app,
        async start() {
          await scanner.packs.ensureSigningKey();
          // Expiries reopen findings and pending approvals are read, every SCANNER_SWEEP_SECONDS.
          sweep = setInterval(() => {
            sweeping = scanner.suppressions
              .sweep()
              .catch((err: unknown) => logger.warn({ err }, 'suppression sweep failed'));
          }, config.sweepSeconds * 1000);
          sweep.unref();
          // Schedules: due ones every SCANNER_SCHEDULE_TICK_SECONDS; those listening to an event
          // when it arrives (the bus is at most once: a missed event waits for the interval, if any).
          ticker = setInterval(() => {
            scanner.scheduler.tick().catch((err: unknown) => logger.warn({ err }, 'scheduled scans failed'));
          }, config.scheduleTickSeconds * 1000);
          ticker.unref();
          unsubscribe.push(
            await events.subscribe(CONFIG_CHANGED, (c) => onEvent(CONFIG_CHANGED.topic, c.tenant_id)),
            await events.subscribe(INGESTION_COMPLETED, (c) => onEvent(INGESTION_COMPLETED.topic, c.tenant_id)),
          );
        },
        async stop() {
          if (ticker) clearInterval(ticker);
          for (const u of unsubscribe.splice(0)) await u();
          await Promise.all([...inFlight]);
          await scanner.scans.drain();
          await scanner.scheduler.stop();
          if (sweep) clearInterval(sweep);
          await sweeping;
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const complianceScannerService: ServiceDefinition = defineComplianceScannerService();
