// Wires the workflow domain from its dependencies: the store, the executor (its step runner, the
// action catalogue's environment, the service token for resumed runs), the packs registry and
// validation clients, the event publisher and the tenant access rule (an operator's access is
// recorded in the tenant's ledger through the outbox).
import { randomUUID } from 'node:crypto';
import { ServiceIdentity } from '../../platform/auth/service-identity';
import type { MfaPolicy } from '../../platform/auth/mfa';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { AiBrokerClient } from '../../platform/clients/ai-broker.client';
import { DataflowClient } from '../../platform/clients/dataflow.client';
import { PacksRegistryClient } from '../../platform/clients/packs-registry.client';
import { ValidationClient } from '../../platform/clients/validation.client';
import type { Database } from '../../platform/db/database';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { PendingNotice } from '../../platform/outbox/notice.writer';
import { StepRunner } from './step.runner';
import type { WorkflowConfig } from './workflow.config';
import { WorkflowEvents } from './workflow.events';
import { WorkflowExecutor } from './execution.scheduler';
import { TriggerService } from './trigger.service';
import { WorkflowService } from './workflow.service';
import { createWorkflowStore, type WorkflowStore } from './workflow.store';

export interface WorkflowModuleDeps {
  db: Database;
  bus: Pick<EventBus, 'publish'>;
  /** Called after a commit that wrote notices (wakes the service's notice relay). */
  onNoticeCommitted?: () => void;
  config: WorkflowConfig;
  logger: Logger;
  jwtSecret: string;
  /** The platform's MFA policy (PlatformConfig.auth.mfa): deciding an approval needs a second factor of its roles. */
  mfa?: MfaPolicy;
  version: string;
  /** Stand-ins (tests). */
  packs?: Pick<PacksRegistryClient, 'get'>;
  validation?: Pick<ValidationClient, 'validate'>;
  ai?: Pick<AiBrokerClient, 'inference'>;
  dataflow?: Pick<DataflowClient, 'run'>;
  /** The executor's id (tests run two executors over one database). */
  owner?: string;
  /** A trigger on a topic was created here (the service starts consuming the topic). */
  onTriggerTopic?: (topic: string) => void;
  /** Committed compliance notices, also handed to the compliance service's client (PLATFORM_COMPLIANCE_URL). */
  forwardCompliance?: (notices: readonly PendingNotice[]) => void;
}

export interface WorkflowModule {
  service: WorkflowService;
  triggers: TriggerService;
  executor: WorkflowExecutor;
  store: WorkflowStore;
}

export function createWorkflowModule(deps: WorkflowModuleDeps): WorkflowModule {
  const { config, logger, db } = deps;
  const store = createWorkflowStore(db.sql, db.kind);
  const events = new WorkflowEvents(store, deps.bus, logger, deps.onNoticeCommitted, deps.forwardCompliance);
  // The workflow's own identity, scoped to one tenant (platform/auth/service-identity.ts): used for
  // calls of callers without a token (the spec's trust-the-gateway mode) and of runs with no caller
  // at hand (resumed after a restart, an approval or a retry). Never a platform-wide service account.
  const identity = new ServiceIdentity(deps.jwtSecret, 'workflow');
  const runner = new StepRunner(
    deps.validation ?? new ValidationClient(config.validationUrl, identity),
    {
      httpAllowedHosts: config.httpAllowedHosts,
      httpTimeoutMs: config.httpTimeoutMs,
      publish: (contract, payload) => events.publish(contract, payload),
    },
    deps.ai ?? new AiBrokerClient(config.aiBrokerUrl, { identity }),
    deps.dataflow ?? new DataflowClient(config.dataflowUrl, identity),
  );
  const executor = new WorkflowExecutor({
    store,
    runner,
    events,
    config,
    logger,
    serviceToken: (tenantId) => identity.tokenFor(tenantId),
    owner: deps.owner,
  });
  const access = new TenantAccess(
    (a) =>
      store.appendAudit(store.sql, {
        tenantId: a.tenantId,
        eventType: OPERATOR_ACCESS_EVENT,
        eventData: operatorAccessData(a),
        userId: a.operator,
        correlationId: a.correlationId,
        idempotencyKey: randomUUID(),
      }),
    deps.mfa,
  );
  const service = new WorkflowService({
    store,
    executor,
    events,
    access,
    config,
    version: deps.version,
    packs: deps.packs ?? new PacksRegistryClient(config.packsRegistryUrl, identity),
  });
  const triggers = new TriggerService({
    store,
    workflows: service,
    executor,
    access,
    identity,
    onTopic: deps.onTriggerTopic,
  });
  return { service, triggers, executor, store };
}
