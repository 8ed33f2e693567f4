// Subscriptions, fed the platform's way ("pull on notify", platform/events/pull-on-notify.ts):
// every committed transition publishes `workflow.changed` on the bus (NATS or PostgreSQL NOTIFY
// across processes); a notice is only a wake-up, and the subscription then reads the
// transitions table after the last position it delivered. So a subscriber sees every transition
// once and in order whatever the bus does, and resumes from a cursor (`afterVersion`,
// `afterCursor`) with nothing in between lost: "start a workflow, then subscribe with
// afterVersion: 0" can never miss a transition.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Caller } from '../../platform/auth/caller';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import { graphqlCaller } from '../../platform/graphql/caller-context';
import { formatGraphQLError } from '../../platform/graphql/errors';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { workflowContext, type WorkflowGraphQLContext } from './graphql.context';
import { WORKFLOW_CHANGED_TOPIC, type ChangedNotice } from './workflow.events';
import type { WorkflowService } from './workflow.service';
import type { WorkflowStore } from './workflow.store';
import { FINAL_STATUSES, type Transition } from './workflow.types';

const PAGE = 200;
const FINAL_EVENTS = new Set(['workflow.completed', 'workflow.failed', 'workflow.rejected']);

export function statusFeed(store: WorkflowStore, tenantId: string, workflowId: string): Feed<Transition, ChangedNotice> {
  return {
    topic: WORKFLOW_CHANGED_TOPIC,
    pageSize: PAGE,
    wakes: (n) => n.tenant_id === tenantId && n.workflow_id === workflowId,
    read: (after) => store.transitionsAfter(tenantId, workflowId, after, PAGE),
    positionOf: (t) => t.version,
    last: (t) => FINAL_EVENTS.has(t.event) && FINAL_STATUSES.includes(t.status),
  };
}

export function approvalFeed(store: WorkflowStore, tenantId: string): Feed<Transition, ChangedNotice> {
  return {
    topic: WORKFLOW_CHANGED_TOPIC,
    pageSize: PAGE,
    wakes: (n) => n.tenant_id === tenantId && n.event === 'approval.requested',
    read: (after) => store.eventsAfter(tenantId, 'approval.requested', after, PAGE),
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

function param(params: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = params[n];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/** graphql-ws on the service's own /graphql path (the router forwards subscriptions here). */
export function serveSubscriptions(options: WorkflowSubscriptionOptions): void {
  const { app, bus, service, store, tokens } = options;
  const wss = new WebSocketServer({ noServer: true });
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((request.url ?? '').split('?')[0] !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  const server = useServer<Record<string, unknown>, { caller?: Caller }>({
    schema: options.schema,
    onConnect: async (ctx) => {
      const params = ctx.connectionParams ?? {};
      try {
        const caller = await graphqlCaller({
          authorization: param(params, 'authorization', 'Authorization'),
          tenantHeader: param(params, 'x-tenant-id', 'X-Tenant-ID', 'tenantId'),
          correlationId: param(params, 'x-correlation-id') ?? randomUUID(),
        }, tokens);
        if (options.requireAuth && !caller.auth) return false;
        ctx.extra.caller = caller;
        return true;
      } catch {
        return false;
      }
    },
    // Domain errors keep their codes over the socket too (NOT_FOUND for another tenant's workflow).
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatGraphQLError(e.toJSON(), e)),
    onNext: (_ctx, _id, _payload, _args, result) => {
      const r = result as ExecutionResult;
      return r.errors ? { ...r, errors: r.errors.map((e: GraphQLError) => formatGraphQLError(e.toJSON(), e)) } as never : undefined;
    },
    context: (ctx): WorkflowGraphQLContext => {
      const caller = ctx.extra.caller ?? { correlationId: randomUUID() };
      return {
        ...workflowContext(caller, service, options.requireAuth),
        subscribeStatus: async (workflowId, afterVersion) => {
          const tenantId = await service.subscriptionTenant(caller);
          const execution = await service.assertWorkflow(tenantId, workflowId);
          return pullOnNotify(bus, statusFeed(store, tenantId, workflowId), async () => afterVersion ?? Math.max(0, execution.version - 1));
        },
        subscribeApprovals: async (afterSeq) => {
          const tenantId = await service.subscriptionTenant(caller);
          return pullOnNotify(bus, approvalFeed(store, tenantId), async () => afterSeq ?? (await store.headSeq()));
        },
      };
    },
  }, wss);
  app.addHook('preClose', async () => {
    await server.dispose();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}
