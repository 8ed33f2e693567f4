// The workflow subgraph's resolvers: thin adapters over workflow.service (the same functions as
// the REST door). Statuses are the domain's lower-case names inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { InputError } from '../../platform/errors/domain-errors';
import { decodeSeqCursor, encodeCursor } from '../../platform/pagination/cursor';
import { callerOf, type WorkflowGraphQLContext as Ctx } from './graphql.context';
import type { ApprovalTask, Execution, StepRecord, Transition } from './workflow.types';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

const upper = (s: string) => s.toUpperCase();
const lower = (s: string | null | undefined) => (s ? s.toLowerCase() : undefined);
const CURSOR = 'seq';

type ExecutionNode = Execution & { steps?: StepRecord[]; tasks?: ApprovalTask[] };

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    workflowExecution: async (_: unknown, args: { id: string }, ctx: Ctx) => orNull(ctx.service.status(callerOf(ctx), args.id).then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks }))),
    workflowExecutions: async (_: unknown, args: { status?: string | null; workflowType?: string | null; first?: number | null; after?: string | null }, ctx: Ctx) => {
      const r = await ctx.service.executions(callerOf(ctx), { status: lower(args.status), workflowType: opt(args.workflowType) }, args.first ?? 50, opt(args.after));
      return { nodes: r.executions, nextCursor: r.nextCursor };
    },
    approvalTasks: async (_: unknown, args: { status?: string | null; workflowType?: string | null; reviewer?: string | null; first?: number | null; after?: string | null }, ctx: Ctx) => {
      const r = await ctx.service.approvalTasks(callerOf(ctx), { status: lower(args.status), workflowType: opt(args.workflowType), reviewer: opt(args.reviewer) }, args.first ?? 50, opt(args.after));
      return { nodes: r.tasks, nextCursor: r.nextCursor };
    },
    approvalTask: (_: unknown, args: { id: string }, ctx: Ctx) => orNull(ctx.service.approvalTask(callerOf(ctx), args.id)),
  },
  Mutation: {
    executeWorkflow: async (_: unknown, args: { input: { workflowPackId?: string | null; workflowPackVersion?: string | null; workflowType: string; payload: unknown; metadata?: unknown } }, ctx: Ctx) => {
      const i = args.input;
      const r = await ctx.service.execute(callerOf(ctx), {
        workflowPackId: opt(i.workflowPackId), workflowPackVersion: opt(i.workflowPackVersion), workflowType: i.workflowType, payload: i.payload, metadata: opt(i.metadata),
      }, { token: ctx.token });
      const view = await ctx.service.status(callerOf(ctx), r.workflowId);
      return { ...r, execution: { ...view.execution, steps: view.steps, tasks: view.tasks } };
    },
    decideApproval: async (_: unknown, args: { taskId: string; decision: string; notes?: string | null }, ctx: Ctx) => {
      const caller = callerOf(ctx);
      return ctx.service.decide(caller, args.taskId, { decision: args.decision, notes: opt(args.notes), reviewer: caller.auth?.username });
    },
  },
  Subscription: {
    workflowStatusChanged: {
      subscribe: (_: unknown, args: { workflowId: string; afterVersion?: number | null }, ctx: Ctx) => {
        if (!ctx.subscribeStatus) throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        const after = opt(args.afterVersion);
        if (after !== undefined && after < 0) throw InputError.of(['afterVersion'], 'Input should be greater than or equal to 0', 'greater_than_equal');
        return ctx.subscribeStatus(args.workflowId, after);
      },
      resolve: (t: Transition) => t,
    },
    approvalRequested: {
      subscribe: (_: unknown, args: { afterCursor?: string | null }, ctx: Ctx) => {
        if (!ctx.subscribeApprovals) throw InputError.of(['subscription'], 'Subscriptions are served over graphql-ws on /graphql');
        const after = args.afterCursor ? decodeSeqCursor(args.afterCursor, CURSOR, 'afterCursor') : undefined;
        return ctx.subscribeApprovals(after);
      },
      resolve: async (t: Transition, _: unknown, ctx: Ctx) => ({
        cursor: encodeCursor(CURSOR, t.seq), event: t.event, task: await ctx.service.approvalTask(callerOf(ctx), t.taskId!),
      }),
    },
  },
  WorkflowExecution: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => orNull(ctx.service.status(callerOf(ctx), ref.id).then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks }))),
    status: (e: ExecutionNode) => upper(e.status),
    packSource: (e: ExecutionNode) => upper(e.packSource),
    requiresHumanApproval: (e: ExecutionNode) => e.requiresApproval,
    steps: async (e: ExecutionNode, _: unknown, ctx: Ctx) => e.steps ?? (await ctx.service.status(callerOf(ctx), e.id)).steps,
    approvalTasks: async (e: ExecutionNode, _: unknown, ctx: Ctx) => e.tasks ?? (await ctx.service.status(callerOf(ctx), e.id)).tasks,
  },
  WorkflowStep: {
    durationMs: (s: StepRecord) => (s.startedAt && s.finishedAt ? Date.parse(s.finishedAt) - Date.parse(s.startedAt) : null),
  },
  ExecuteWorkflowResult: {
    status: (r: { status: string }) => upper(r.status),
    packSource: (r: { packSource: string }) => upper(r.packSource),
  },
  ApprovalDecision: {
    workflowStatus: (r: { workflowStatus: string }) => upper(r.workflowStatus),
  },
  ApprovalTask: {
    __resolveReference: (ref: { id: string }, ctx: Ctx) => orNull(ctx.service.approvalTask(callerOf(ctx), ref.id)),
    workflow: (t: ApprovalTask, _: unknown, ctx: Ctx) => orNull(ctx.service.status(callerOf(ctx), t.workflowId).then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks }))),
  },
  WorkflowStatusChange: {
    status: (t: Transition) => upper(t.status),
    approvalTaskId: (t: Transition) => t.taskId,
    execution: (t: Transition, _: unknown, ctx: Ctx) => orNull(ctx.service.status(callerOf(ctx), t.workflowId).then((v) => ({ ...v.execution, steps: v.steps, tasks: v.tasks }))),
  },
} satisfies Resolvers;
