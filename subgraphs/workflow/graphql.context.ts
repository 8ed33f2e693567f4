// Per-request GraphQL context: the caller (built by the kernel), the service, the DataLoaders
// that batch one request's entity references into one tenant-scoped read each, and on graphql-ws
// connections the subscription feeds (workflow.subscriptions.ts).
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { TriggerService } from './trigger.service';
import type { ExecutionView, WorkflowService } from './workflow.service';
import type { ApprovalTask, Transition } from './workflow.types';

export interface WorkflowLoaders {
  /** Executions with their steps and tasks: three reads per batch (workflow.service statusByIds). */
  executionById: DataLoader<string, ExecutionView | null>;
  approvalTaskById: DataLoader<string, ApprovalTask | null>;
}

export interface WorkflowGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: WorkflowService;
  /** Workflow triggers (absent in contexts built without them: tests of the subscriptions). */
  triggers?: TriggerService;
  token?: string;
  loaders: WorkflowLoaders;
  subscribeStatus?: (
    workflowId: string,
    afterVersion: number | undefined,
  ) => Promise<AsyncIterableIterator<Transition>>;
  subscribeApprovals?: (afterSeq: number | undefined) => Promise<AsyncIterableIterator<Transition>>;
}

export function workflowContext(
  caller: Caller,
  service: WorkflowService,
  requireAuth: boolean,
  token?: string,
  triggers?: TriggerService,
): WorkflowGraphQLContext {
  const loaders: WorkflowLoaders = {
    executionById: new DataLoader((ids) => service.statusByIds(caller, ids)),
    approvalTaskById: new DataLoader((ids) => service.approvalTasksByIds(caller, ids)),
  };
  return { caller, service, triggers, requireAuth, token, loaders };
}

/** The caller, refusing anonymous callers when auth is required. */
export function callerOf(ctx: WorkflowGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
