// Wires the workflow domain from its dependencies: the store, the executor (its step runner, the
// action catalogue's environment, the service token for resumed runs), the packs registry and
// validation clients, the event publisher and the tenant access rule (an operator's access is
// recorded in the tenant's ledger through the outbox).
import { randomUUID } from 'node:crypto';
import { AccessTokens } from '../../platform/auth/jwt';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { AiBrokerClient } from '../../platform/clients/ai-broker.client';
import { PacksRegistryClient } from '../../platform/clients/packs-registry.client';
import { ValidationClient } from '../../platform/clients/validation.client';
import type { Database } from '../../platform/db/database';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import { StepRunner } from './step.runner';
import type { WorkflowConfig } from './workflow.config';
import { WorkflowEvents } from './workflow.events';
import { WorkflowExecutor } from './workflow.executor';
import { WorkflowService } from './workflow.service';
import { createWorkflowStore, type WorkflowStore } from './workflow.store';

export interface WorkflowModuleDeps {
  db: Database;
  bus: Pick<EventBus, 'publish'>;
  config: WorkflowConfig;
  logger: Logger;
  jwtSecret: string;
  version: string;
  /** Stand-ins (tests). */
  packs?: Pick<PacksRegistryClient, 'get'>;
  validation?: Pick<ValidationClient, 'validate'>;
  ai?: Pick<AiBrokerClient, 'inference'>;
  /** The executor's id (tests run two executors over one database). */
  owner?: string;
}

export interface WorkflowModule {
  service: WorkflowService;
  executor: WorkflowExecutor;
  store: WorkflowStore;
}

/**
 * The workflow service's own token for calls made without a caller at hand (a run resumed after a
 * restart, an approval or a retry): role `service:workflow`, scopes read and write, issued for the
 * workflow's tenant and signed with the platform's shared secret, as the outbox relay's is.
 */
function serviceTokens(secret: string): (tenantId: string) => Promise<string> {
  const tokens = new AccessTokens(secret, 900);
  const cache = new Map<string, { token: string; expiresAt: number }>();
  return async (tenantId) => {
    const hit = cache.get(tenantId);
    if (hit && hit.expiresAt > Date.now() + 60_000) return hit.token;
    const token = await tokens.issue({ username: 'workflow', tenantId, roles: ['service:workflow'], scopes: ['read', 'write'] });
    if (cache.size > 10_000) cache.clear();
    cache.set(tenantId, { token, expiresAt: Date.now() + 900_000 });
    return token;
  };
}

export function createWorkflowModule(deps: WorkflowModuleDeps): WorkflowModule {
  const { config, logger, db } = deps;
  const store = createWorkflowStore(db.sql);
  const events = new WorkflowEvents(deps.bus, logger);
  const runner = new StepRunner(deps.validation ?? new ValidationClient(config.validationUrl), {
    httpAllowedHosts: config.httpAllowedHosts, httpTimeoutMs: config.httpTimeoutMs, publish: (topic, payload) => events.publish(topic, payload),
  }, deps.ai ?? new AiBrokerClient(config.aiBrokerUrl));
  const executor = new WorkflowExecutor({ store, runner, events, config, logger, serviceToken: serviceTokens(deps.jwtSecret), owner: deps.owner });
  const access = new TenantAccess((a) => store.appendAudit(store.sql, {
    tenantId: a.tenantId, eventType: OPERATOR_ACCESS_EVENT, eventData: operatorAccessData(a), userId: a.operator, correlationId: a.correlationId, idempotencyKey: randomUUID(),
  }));
  const service = new WorkflowService({
    store, executor, events, access, config, version: deps.version, packs: deps.packs ?? new PacksRegistryClient(config.packsRegistryUrl),
  });
  return { service, executor, store };
}
