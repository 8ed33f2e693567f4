// The run-progress subscription (dataflowRunProgress), fed the platform's way ("pull on notify",
// platform/events/pull-on-notify.ts), as workflowStatusChanged is: each committed progress step
// or finish publishes `dataflow.run_changed` on the bus, which only wakes the feed; the feed then
// reads the run itself. A run's position is how many of its parts (transforms, reconciliations)
// are done, plus one when it has finished, so each read yields the run only when it moved on, a
// lost or late notice is caught up by the next, and the subscription ends with the final state.
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { DATAFLOW_RUN_CHANGED } from '../../platform/contracts/pipeline.events';
import type { EventBus } from '../../platform/events/event-bus';
import { pullOnNotify, type Feed } from '../../platform/events/pull-on-notify';
import { serveSubscriptions } from '../../platform/graphql/subscription-server';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import type { RunRecord } from './dataflow.types';
import { dataflowContext, type DataflowGraphQLContext } from './graphql.context';
import type { DataflowService } from './run.service';
import type { RunStore } from './run.store';

/** Parts done, plus one once finished: grows with every committed step of one run. */
export function progressPosition(run: RunRecord): number {
  const parts = (run.progress.transforms_done?.length ?? 0) + (run.progress.reconciliations_done?.length ?? 0);
  return parts + (run.status === 'running' ? 0 : 1);
}

export function progressFeed(
  runs: Pick<RunStore, 'get'>,
  tenantId: string,
  runId: string,
): Feed<RunRecord, typeof DATAFLOW_RUN_CHANGED> {
  return {
    contract: DATAFLOW_RUN_CHANGED,
    pageSize: 1,
    wakes: (n) => n.tenant_id === tenantId && n.run_id === runId,
    read: async (after) => {
      const run = await runs.get(tenantId, runId);
      return run && progressPosition(run) > after ? [run] : [];
    },
    positionOf: progressPosition,
    last: (run) => run.status !== 'running',
  };
}

export interface DataflowSubscriptionOptions {
  app: FastifyInstance;
  schema: GraphQLSchema;
  bus: EventBus;
  service: DataflowService;
  runs: Pick<RunStore, 'get'>;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

/** graphql-ws on the service's own /graphql path (the router forwards subscriptions here). */
export function serveDataflowSubscriptions(options: DataflowSubscriptionOptions): void {
  const { bus, service, runs } = options;
  serveSubscriptions<DataflowGraphQLContext>({
    ...options,
    context: (caller, params) => {
      const authorization = typeof params.authorization === 'string' ? params.authorization : undefined;
      return {
        ...dataflowContext(caller, { headers: { authorization } }, service),
        // The current state first (a finished run: only that), then each step, ending with the final state.
        subscribeProgress: async (runId) => {
          const run = await service.getRun(caller, { runId });
          return pullOnNotify(bus, progressFeed(runs, run.tenantId, run.id), async () => -1);
        },
      };
    },
  });
}
