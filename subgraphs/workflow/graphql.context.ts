// Per-request GraphQL context: the caller (built by the kernel), the service, and on graphql-ws
// connections the subscription feeds (workflow.subscriptions.ts).
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { WorkflowService } from './workflow.service';
import type { Transition } from './workflow.types';

export interface WorkflowGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: WorkflowService;
  token?: string;
  subscribeStatus?: (workflowId: string, afterVersion: number | undefined) => Promise<AsyncIterableIterator<Transition>>;
  subscribeApprovals?: (afterSeq: number | undefined) => Promise<AsyncIterableIterator<Transition>>;
}

export function workflowContext(caller: Caller, service: WorkflowService, requireAuth: boolean, token?: string): WorkflowGraphQLContext {
  return { caller, service, requireAuth, token };
}

/** The caller, refusing anonymous callers when auth is required. */
export function callerOf(ctx: WorkflowGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
