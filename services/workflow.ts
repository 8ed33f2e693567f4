// The workflow service (spec 03, port 8130): REST routes (rest-compat/workflow), the workflow
// subgraph at /graphql with its subscriptions over graphql-ws on the same path, and the durable
// executor that drives executions from the platform database (docs/workflow.md).
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { bearerToken } from '../platform/auth/jwt';
import type { EventBus } from '../platform/events/event-bus';
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { complianceForwarder } from '../platform/clients/compliance.forwarder';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerWorkflowRoutes } from '../rest-compat/workflow';
import { workflowContext } from '../subgraphs/workflow/graphql.context';
import { resolvers } from '../subgraphs/workflow/resolvers';
import { triggerConsumers, type TriggerConsumers } from '../subgraphs/workflow/trigger.consumers';
import { loadWorkflowConfig, type WorkflowConfig } from '../subgraphs/workflow/workflow.config';
import { createWorkflowModule, type WorkflowModuleDeps } from '../subgraphs/workflow/workflow.module';
import { serveWorkflowSubscriptions } from '../subgraphs/workflow/workflow.subscriptions';
import { serviceRetention } from '../platform/retention/retention-sweeper';
import { purgeWorkflowPayloads } from '../subgraphs/workflow/execution.store';

export interface WorkflowServiceOptions {
  /** An event bus to use instead of the process's (tests); the caller then owns closing it. */
  bus?: EventBus;
  packs?: WorkflowModuleDeps['packs'];
  validation?: WorkflowModuleDeps['validation'];
  /** Executor id (tests). */
  owner?: string;
  /** Settings over the environment's (tests). */
  config?: Partial<WorkflowConfig>;
  /** Leave the executor's poller off (tests that drive executors by hand). */
  poll?: boolean;
}

export function defineWorkflowService(options: WorkflowServiceOptions = {}): ServiceDefinition {
  const workflow: ServiceDefinition = defineService({
    name: 'workflow',
    version: '0.1.0',
    port: 8130,
    subgraph: 'subgraphs/workflow/schema.graphql',
    producesAudit: true,
    gatewayRoutes: [
      {
        method: 'POST',
        url: '/api/v1/workflows/execute',
        upstreamPath: '/execute',
        summary: 'Execute a workflow pack (workflow POST /execute)',
      },
      // Spec 03 lists /workflow-status as "workflow service status via the gateway"; it reads the
      // tenant from the token (X-Tenant-ID), so nothing is injected.
      {
        method: 'GET',
        url: '/api/v1/workflows/status',
        upstreamPath: '/workflow-status',
        summary: "The workflow service's status for the caller's tenant (workflow GET /workflow-status)",
      },
    ],
    async build(deps) {
      const { config: platform, db, logger, env, registry } = deps;
      const config = { ...loadWorkflowConfig(env, registry), ...options.config };
      const { bus, release: releaseBus } = await serviceBus(deps, options.bus);
      // Lifecycle, compliance and workflow.changed notices are written with each transition
      // (the notice outbox); this relay publishes them, woken after each such commit.
      const notices = startServiceNotices(deps, bus, workflow.name);
      // PLATFORM_COMPLIANCE_URL set: failures and compensations are also submitted through the typed
      // ComplianceClient (the backbone stays the at-least-once path; the intake takes each id once).
      const compliance = complianceForwarder(env, new ServiceIdentity(platform.auth.jwtSecret, workflow.name), logger);
      const { service, triggers, executor, store } = createWorkflowModule({
        db,
        bus,
        onNoticeCommitted: () => notices.wake(),
        forwardCompliance: (committed) => compliance.forward(committed),
        config,
        logger,
        jwtSecret: platform.auth.jwtSecret,
        mfa: platform.auth.mfa,
        version: workflow.version,
        packs: options.packs,
        validation: options.validation,
        owner: options.owner,
        // Called only after build (a trigger created through a door), when `consumers` exists.
        onTriggerTopic: (topic) => {
          consumers.ensure(topic).catch(() => undefined);
        },
      });
      // Workflows started by events (docs/workflow.md, "Triggers"): one platform group per triggered topic.
      const consumers: TriggerConsumers = triggerConsumers({ db, bus, logger, store, triggers, config });
      // HTTP and graphql-ws alike: HS256 and the OIDC provider's tokens (the router forwards the caller's).
      const tokens = acceptingAsymmetric(
        new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60),
        platform.auth.oidc,
      );
      const { app, schema } = await buildServiceApp(workflow, deps, {
        title: 'Workflow',
        description:
          'Runs workflow packs (spec 03) as durable sagas on the platform database: validation and action steps, decisions, parallel groups, ' +
          'human approval gates, compensation in reverse order on failure or rejection. Status and approvals are live over GraphQL subscriptions.',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) => registerWorkflowRoutes(routes, service, { version: workflow.version }, triggers),
        subgraph: {
          resolvers,
          context: (caller, request) =>
            workflowContext(caller, service, config.requireAuth, bearerToken(request.headers.authorization), triggers),
        },
      });
      serveWorkflowSubscriptions({
        app,
        schema: schema!,
        bus,
        service,
        store,
        tokens,
        requireAuth: config.requireAuth,
      });
      // Retention (docs/compliance.md): the tenants' workflow_payload policies, enforced here.
      const retention = serviceRetention(deps, [
        { recordType: 'workflow_payload', service: workflow.name, purge: purgeWorkflowPayloads },
      ]);
      return {
        app,
        async start() {
          // PGlite serves one process (its lock file says so), so any lease in it belongs to a
          // process that is gone: take the work back at once instead of waiting for expiry.
          if (db.kind === 'pglite') {
            const released = await store.releaseAllLeases();
            if (released > 0) logger.info({ released }, 'resuming workflows left running by a previous process');
          }
          if (options.poll !== false) executor.start();
          await consumers.start();
          retention.start();
        },
        async stop() {
          await consumers.stop();
          await executor.stop();
          await retention.stop();
          await compliance.drain();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return workflow;
}

export const workflowService: ServiceDefinition = defineWorkflowService();
