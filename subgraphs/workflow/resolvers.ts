// The workflow subgraph's resolvers: thin adapters over workflow.service (the same functions as
// the REST door). Statuses are the domain's lower-case names inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { InputError, UnavailableError } from '../../platform/errors/domain-errors';
import { decodeSeqCursor, encodeCursor } from '../../platform/pagination/cursor';
import { callerOf, type WorkflowGraphQLContext as Ctx } from './graphql.context';
import type { ApprovalTask, Execution, StepRecord, Transition } from './workflow.types';
import { lower, opt, orNull, upper } from '../../platform/graphql/resolver-args';
import type { ExecuteResult } from './workflow.service';
import type { Resolvers } from './resolvers.generated';

const CURSOR = 'seq';

function triggersOf(ctx: Ctx) {
  if (!ctx.triggers) throw new UnavailableError('Workflow triggers are not served here');
  return ctx.triggers;
}

/** What a WorkflowExecution resolves from (the generated types' mapper): steps and tasks when already read. */
export type ExecutionNode = Execution & { steps?: StepRecord[]; tasks?: ApprovalTask[] };
/** What an ExecuteWorkflowResult resolves from: the service's result and the execution it started. */
export type ExecuteResultNode = ExecuteResult & { execution: ExecutionNode };

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    workflowTriggers: (_, __, ctx) => triggersOf(ctx).list(callerOf(ctx)),
    workflowTrigger: (_, args, ctx) => orNull(triggersOf(ctx).get(callerOf(ctx), args.id)),
    workflowExecution: async (_, args, ctx) =>
      orNull(
        ctx.service.status(callerOf(ctx), args.id).then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks })),
      ),
    workflowExecutions: async (_, args, ctx) => {
      const r = await ctx.service.executions(
        callerOf(ctx),
        { status: args.status ? lower(args.status) : undefined, workflowType: opt(args.workflowType) },
        args.first ?? 50,
        opt(args.after),
      );
      return { nodes: r.executions, nextCursor: r.nextCursor };
    },
    approvalTasks: async (_, args, ctx) => {
      const r = await ctx.service.approvalTasks(
        callerOf(ctx),
        {
          status: args.status ? lower(args.status) : undefined,
          workflowType: opt(args.workflowType),
          reviewer: opt(args.reviewer),
        },
        args.first ?? 50,
        opt(args.after),
      );
      return { nodes: r.tasks, nextCursor: r.nextCursor };
    },
    approvalTask: (_, args, ctx) => orNull(ctx.service.approvalTask(callerOf(ctx), args.id)),
  },
  Mutation: {
    createWorkflowTrigger: (_, args, ctx) =>
      triggersOf(ctx).create(
        callerOf(ctx),
        {
          workflowPackId: args.input.workflowPackId,
          workflowPackVersion: opt(args.input.workflowPackVersion),
          workflowType: args.input.workflowType,
        },
        { token: ctx.token },
      ),
    deleteWorkflowTrigger: async (_, args, ctx) => {
      await triggersOf(ctx).remove(callerOf(ctx), args.id);
      return true;
    },
    executeWorkflow: async (_, args, ctx) => {
      const i = args.input;
      const r = await ctx.service.execute(
        callerOf(ctx),
        {
          workflowPackId: opt(i.workflowPackId),
          workflowPackVersion: opt(i.workflowPackVersion),
          workflowType: i.workflowType,
          payload: i.payload,
          metadata: opt(i.metadata),
        },
        { token: ctx.token },
      );
      const view = await ctx.service.status(callerOf(ctx), r.workflowId);
      return { ...r, execution: { ...view.execution, steps: view.steps, tasks: view.tasks } };
    },
    decideApproval: async (_, args, ctx) => {
      const caller = callerOf(ctx);
      return ctx.service.decide(caller, args.taskId, {
        decision: args.decision,
        notes: opt(args.notes),
        reviewer: caller.auth?.username,
      });
    },
  },
  Subscription: {
    workflowStatusChanged: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeStatus)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        const after = opt(args.afterVersion);
        if (after !== undefined && after < 0)
          throw InputError.of(['afterVersion'], 'Input should be greater than or equal to 0', 'greater_than_equal');
        return ctx.subscribeStatus(args.workflowId, after);
      },
      resolve: (t: Transition) => t,
    },
    approvalRequested: {
      subscribe: (_, args, ctx) => {
        if (!ctx.subscribeApprovals)
          throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        const after = args.afterCursor ? decodeSeqCursor(args.afterCursor, CURSOR, 'afterCursor') : undefined;
        return ctx.subscribeApprovals(after);
      },
      resolve: async (t: Transition, _: unknown, ctx: Ctx) => ({
        cursor: encodeCursor(CURSOR, t.seq),
        event: t.event,
        task: await ctx.service.approvalTask(callerOf(ctx), t.taskId!),
      }),
    },
  },
  WorkflowTrigger: {
    workflowPackId: (t) => t.packId,
    workflowPackVersion: (t) => t.packVersion,
  },
  WorkflowExecution: {
    // Batched per request (graphql.context.ts): one read of executions, steps and tasks per batch;
    // an unknown or another tenant's execution is null, any other error keeps its code.
    __resolveReference: async (ref, ctx) => {
      callerOf(ctx);
      const v = await ctx.loaders.executionById.load(ref.id);
      return v && { ...v.execution, steps: v.steps, tasks: v.tasks };
    },
    status: (e) => upper(e.status),
    packSource: (e) => upper(e.packSource),
    requiresHumanApproval: (e) => e.requiresApproval,
    steps: async (e, _, ctx) => e.steps ?? (await ctx.service.status(callerOf(ctx), e.id)).steps,
    approvalTasks: async (e, _, ctx) => e.tasks ?? (await ctx.service.status(callerOf(ctx), e.id)).tasks,
  },
  WorkflowStep: {
    durationMs: (s) => (s.startedAt && s.finishedAt ? Date.parse(s.finishedAt) - Date.parse(s.startedAt) : null),
  },
  ExecuteWorkflowResult: {
    status: (r) => upper(r.status),
    packSource: (r) => upper(r.packSource),
  },
  ApprovalDecision: {
    workflowStatus: (r) => {
      // WorkflowStatus has no UNKNOWN: a task whose execution is gone is an inconsistency to report.
      if (r.workflowStatus === 'unknown') throw new Error(`Approval task ${r.task.id} has no workflow execution`);
      return upper(r.workflowStatus);
    },
  },
  ApprovalTask: {
    // Batched per request like executions: one read per batch, null when not the tenant's.
    __resolveReference: (ref, ctx) => {
      callerOf(ctx);
      return ctx.loaders.approvalTaskById.load(ref.id);
    },
    workflow: (t, _, ctx) =>
      orNull(
        ctx.service
          .status(callerOf(ctx), t.workflowId)
          .then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks })),
      ),
  },
  WorkflowStatusChange: {
    status: (t) => upper(t.status),
    approvalTaskId: (t) => t.taskId,
    execution: (t, _, ctx) =>
      orNull(
        ctx.service
          .status(callerOf(ctx), t.workflowId)
          .then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks })),
      ),
  },
} satisfies Resolvers;
