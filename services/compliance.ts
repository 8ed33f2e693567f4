// The compliance service (spec 01, port 8135; issue 28): frameworks imported as OSCAL catalogs
// and profiles (and framework mappings such as SOC 2), mapping packs that say which events are
// evidence for which controls, evidence with content hashes recorded in the ledger and proved
// against its signed checkpoints, and control freshness. REST under /api/compliance/...
// (rest-compat/compliance, proxied by the gateway) and the subgraph at /graphql over one domain.
// The intake consumes the compliance topics from the events backbone (docs/compliance.md, "Intake").
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { WorkflowClient } from '../platform/clients/workflow.client';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { SubjectVault } from '../platform/vault/subject-vault';
import { subjectVaultKey } from '../platform/vault/vault.config';
import { registerComplianceRoutes } from '../rest-compat/compliance';
import { loadComplianceConfig, type ComplianceConfig } from '../subgraphs/compliance/compliance.config';
import { consumeIntake } from '../subgraphs/compliance/compliance.intake';
import { createComplianceModule } from '../subgraphs/compliance/compliance.module';
import { createEvidenceLedger, type EvidenceLedger } from '../subgraphs/compliance/evidence-ledger';
import { ledgerSweep } from '../subgraphs/compliance/evidence.sweep';
import { evidenceStore } from '../subgraphs/compliance/evidence.store';
import { createReportLedger, type ReportLedger } from '../subgraphs/compliance/report-ledger';
import { reportStore } from '../subgraphs/compliance/report.store';
import { reportSweep } from '../subgraphs/compliance/report.sweep';
import { consumeSignOffDecisions } from '../subgraphs/compliance/report-signoff.consumer';
import type { SignOffWorkflow } from '../subgraphs/compliance/report-signoff.service';
import { complianceContext, type ComplianceGraphQLContext } from '../subgraphs/compliance/graphql.context';
import { resolvers } from '../subgraphs/compliance/resolvers';

export interface ComplianceServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  /** Settings over the environment's (tests). */
  config?: Partial<ComplianceConfig>;
  /** Where evidence goes instead of the ledger service (tests of an unreachable ledger). */
  ledger?: EvidenceLedger;
  /** Where reports take checkpoints, proofs and sign-offs instead of the ledger service (tests). */
  reportLedger?: ReportLedger;
  /** Where report sign-offs run instead of the workflow service (tests). */
  workflow?: SignOffWorkflow;
  /** The clock of freshness (tests). */
  now?: () => Date;
  /** false: no durable intake consumers, so evidence comes only through the REST door and the client (tests). */
  intake?: boolean;
}

export function defineComplianceService(options: ComplianceServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'compliance',
    version: '0.1.0',
    port: 8135,
    subgraph: 'subgraphs/compliance/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: ['GET', 'POST', 'DELETE'],
        url: '/api/compliance/*',
        upstreamPath: '/api/compliance/',
        wildcard: true,
        summary:
          'Frameworks (OSCAL), controls, mapping packs, evidence and proofs, reports, retention policies, legal holds and erasures (compliance service)',
      },
    ],
    async build(deps) {
      const { config: platform, db, env, logger, registry } = deps;
      const config = { ...loadComplianceConfig(env, registry), ...options.config };
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      const identity = new ServiceIdentity(platform.auth.jwtSecret, 'compliance');
      const ledger = options.ledger ?? createEvidenceLedger(config.ledgerUrl, identity);
      const reportLedger = options.reportLedger ?? createReportLedger(config.ledgerUrl, identity);
      const vault = new SubjectVault(subjectVaultKey(env, platform.auth.jwtSecret));
      const workflow = options.workflow ?? new WorkflowClient(config.workflowUrl, identity);
      const compliance = createComplianceModule({
        db,
        config,
        ledger,
        reportLedger,
        workflow,
        logger,
        vault,
        now: options.now,
      });
      const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);
      const { app } = await buildServiceApp<ComplianceGraphQLContext>(definition, deps, {
        title: 'Compliance',
        description:
          'Compliance (spec 01, port 8135): OSCAL 1.0.0 catalogs and profiles validated against NIST JSON Schemas, framework ' +
          'mappings, signed mapping packs, evidence with content hashes recorded in the ledger (inclusion proofs on demand), ' +
          'control freshness. Auditors (role auditor) read only. Errors use FastAPI shapes.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerComplianceRoutes(routes, compliance),
        subgraph: {
          resolvers,
          context: (caller, request) => complianceContext(caller, request, compliance, config.requireAuth),
        },
      });
      // Evidence the ledger did not take at once is appended again on a timer (docs/compliance.md).
      const sweep = ledgerSweep(db.sql, evidenceStore, compliance.evidence, {
        intervalMs: (config.ledgerSweepSeconds ?? 300) * 1000,
        logger,
      });
      // Reports a crash left `generating` are discarded on a timer (report.sweep.ts).
      const reports = reportSweep(db.sql, reportStore, {
        intervalMs: (config.reportSweepSeconds ?? 300) * 1000,
        timeoutMs: (config.reportGeneratingTimeoutSeconds ?? 900) * 1000,
        logger,
        now: options.now,
      });
      let stopIntake: (() => Promise<void>) | undefined;
      let stopSignOffs: (() => Promise<void>) | undefined;
      return {
        app,
        async start() {
          await compliance.packs.ensureSigningKey();
          if (options.intake !== false)
            stopIntake = await consumeIntake(db, (event) => compliance.evidence.ingestComplianceEvent(event), {
              bus,
              logger,
            });
          stopSignOffs = await consumeSignOffDecisions(db, compliance.signOff, { bus, logger });
          sweep.start();
          reports.start();
        },
        async stop() {
          await sweep.stop();
          await reports.stop();
          await stopSignOffs?.();
          await stopIntake?.();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const complianceService: ServiceDefinition = defineComplianceService();
