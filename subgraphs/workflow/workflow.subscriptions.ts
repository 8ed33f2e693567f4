// Subscriptions, fed the platform's way ("pull on notify", platform/events/pull-on-notify.ts):
// every committed transition publishes `workflow.changed` on the bus (NATS or PostgreSQL NOTIFY
// across processes); a notice is only a wake-up, and the subscription then reads the
// transitions table after the last position it delivered. So a subscriber sees every transition
// once and in order whatever the bus does, and resumes from a cursor (`afterVersion`,
// `afterCursor`) with nothing in between lost: "start a workflow, then subscribe with
// afterVersion: 0" can never miss a transition.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { WORKFLOW_CHANGED, type WorkflowTransitionEvent } from '../../platform/contracts/workflow.events';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import { workflowContext, type WorkflowGraphQLContext } from './graphql.context';
import type { WorkflowService } from './workflow.service';
import type { WorkflowStore } from './workflow.store';
import { FINAL_STATUSES, type Transition } from './workflow.types';

const PAGE = 200;
// Transition names, checked against the workflow contract (platform/contracts/workflow.events.ts).
const FINAL_EVENTS = new Set<string>([
  'workflow.completed',
  'workflow.failed',
  'workflow.rejected',
] satisfies WorkflowTransitionEvent[]);
const APPROVAL_REQUESTED: WorkflowTransitionEvent = 'approval.requested';

export function statusFeed(
  store: WorkflowStore,
  tenantId: string,
  workflowId: string,
): Feed<Transition, typeof WORKFLOW_CHANGED> {
  return {
    contract: WORKFLOW_CHANGED,
    pageSize: PAGE,
    wakes: (n) => n.tenant_id === tenantId && n.workflow_id === workflowId,
    read: (after) => store.transitionsAfter(tenantId, workflowId, after, PAGE),
    positionOf: (t) => t.version,
    last: (t) => FINAL_EVENTS.has(t.event) && FINAL_STATUSES.includes(t.status),
  };
}

export function approvalFeed(store: WorkflowStore, tenantId: string): Feed<Transition, typeof WORKFLOW_CHANGED> {
  return {
    contract: WORKFLOW_CHANGED,
    pageSize: PAGE,
    wakes: (n) =>
      n.tenant_id === tenantId && (n.event === APPROVAL_REQUESTED || (n.events?.includes(APPROVAL_REQUESTED) ?? false)),
    read: (after) => store.eventsAfter(tenantId, APPROVAL_REQUESTED, after, PAGE),
    positionOf: (t) => t.seq,
  };
}

export interface WorkflowSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  service: WorkflowService;
  store: WorkflowStore;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

/** graphql-ws on the service's own /graphql path (the router forwards subscriptions here). */
export function serveWorkflowSubscriptions(options: WorkflowSubscriptionOptions): void {
  const { bus, service, store } = options;
  serveSubscriptions<WorkflowGraphQLContext>({
    ...options,
    context: (caller) => ({
      ...workflowContext(caller, service, options.requireAuth),
      subscribeStatus: async (workflowId, afterVersion) => {
        const tenantId = await service.subscriptionTenant(caller);
        const execution = await service.assertWorkflow(tenantId, workflowId);
        return pullOnNotify(
          bus,
          statusFeed(store, tenantId, workflowId),
          async () => afterVersion ?? Math.max(0, execution.version - 1),
        );
      },
      subscribeApprovals: async (afterSeq) => {
        const tenantId = await service.subscriptionTenant(caller);
        return pullOnNotify(
          bus,
          approvalFeed(store, tenantId),
          async () => afterSeq ?? (await store.headSeqAcrossTenants()),
        );
      },
    }),
  });
}
