// The AI broker subgraph's resolvers: thin adapters over the same service methods as REST. Input
// problems come back as BAD_USER_INPUT with extensions.field in GraphQL names (prompt, maxTokens,
// variables.name...), since the domain names its fields the way these inputs do.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { NotFoundError } from '../../platform/errors/domain-errors';
import type { AiBrokerGraphQLContext } from './graphql.context';
import type { ModelStatusView } from './ai-broker.service';
import type { Resolvers } from './resolvers.generated';

function model(m: ModelStatusView) {
  return {
    id: m.id,
    provider: m.provider,
    status: m.status,
    costPer1kTokens: m.cost_per_1k_tokens,
    contextWindow: m.context_window,
    tags: m.tags,
    description: m.description,
    latencyMs: m.latency_ms,
    cooldownSeconds: m.cooldown_seconds,
    lastError: m.last_error,
  };
}

const attempts = (list: { model: string; provider: string; outcome: string; reason?: string; latency_ms?: number }[]) =>
  list.map((a) => ({
    model: a.model,
    provider: a.provider,
    outcome: a.outcome,
    reason: a.reason ?? null,
    latencyMs: a.latency_ms ?? null,
  }));

async function modelOrNull(ctx: AiBrokerGraphQLContext, id: string) {
  try {
    return model(await ctx.broker.modelStatus(ctx.caller, id));
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

export const resolvers = {
  JSON: JSONScalar,
  AiModel: {
    __resolveReference: (ref: { id: string }, ctx: AiBrokerGraphQLContext) => modelOrNull(ctx, ref.id),
  },
  Query: {
    aiModels: async (_: unknown, __: unknown, ctx: AiBrokerGraphQLContext) => {
      const { models } = await ctx.broker.models(ctx.caller);
      return Promise.all(models.map(async (m) => model(await ctx.broker.modelStatus(ctx.caller, m.id))));
    },
    aiModel: (_: unknown, args: { id: string }, ctx: AiBrokerGraphQLContext) => modelOrNull(ctx, args.id),
    promptTemplates: (_: unknown, __: unknown, ctx: AiBrokerGraphQLContext) => ctx.broker.listTemplates(ctx.caller),
    promptTemplate: async (
      _: unknown,
      args: { templateId: string; version?: number | null },
      ctx: AiBrokerGraphQLContext,
    ) => {
      try {
        return await ctx.broker.getTemplate(ctx.caller, args.templateId, args.version ?? undefined);
      } catch (err) {
        if (err instanceof NotFoundError) return null;
        throw err;
      }
    },
    aiUsage: async (_: unknown, args: { from?: string | null; to?: string | null }, ctx: AiBrokerGraphQLContext) => {
      const u = await ctx.broker.usage(ctx.caller, { from: args.from ?? undefined, to: args.to ?? undefined });
      return { ...u, tenantId: u.tenant_id };
    },
  },
  Mutation: {
    inference: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AiBrokerGraphQLContext) => {
      const r = await ctx.broker.inference(ctx.caller, input, ctx.forward);
      return { ...r, attempts: attempts(r.attempts) };
    },
    explain: (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AiBrokerGraphQLContext) =>
      ctx.assist.explain(ctx.caller, input),
    generateWorkflow: (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AiBrokerGraphQLContext) =>
      ctx.assist.generateWorkflow(ctx.caller, input, ctx.forward),
    createPromptTemplate: (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AiBrokerGraphQLContext) =>
      ctx.broker.createTemplate(ctx.caller, input),
  },
} satisfies Resolvers;
