// The registry subgraph's resolvers: thin adapters over rulepack.service (the same methods as REST).
// GraphQL names a pack `id`; the domain calls it `packId`.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import type { RulePackGraphQLContext } from './graphql.context';
import { packPosition, type RulePackPage } from './rulepack.service';
import type { DecisionRecord, RulePackVersionRecord } from './rulepack.types';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

type Ctx = RulePackGraphQLContext;

function connection(page: RulePackPage) {
  return {
    edges: page.versions.map((v) => ({ cursor: packPosition.encode(`${v.packId} ${v.version}`), node: v })),
    nodes: page.versions,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const resolvers = {
  JSON: JSONScalar,
  // GraphQL's enum values are upper case like every subgraph's; the domain keeps spec 01's words.
  RulePackStatus: { DRAFT: 'draft', REVIEW: 'review', CERTIFIED: 'certified', DEPRECATED: 'deprecated' },
  RulePackArtifactFormat: { YAML: 'yaml', JSON: 'json' },
  Query: {
    rulePacks: async (_: unknown, args: { status?: string | null; first?: number | null; after?: string | null }, ctx: Ctx) =>
      connection(await ctx.service.list(ctx.caller, { status: opt(args.status), first: opt(args.first), after: opt(args.after) })),
    rulePack: (_: unknown, args: { id: string; version?: string | null }, ctx: Ctx) =>
      orNull(() => (args.version == null
        ? ctx.service.latestCertified(ctx.caller, args.id)
        : ctx.service.get(ctx.caller, { packId: args.id, version: args.version }))),
  },
  Mutation: {
    submitRulePack: async (_: unknown, args: { pack?: unknown; artifact?: string | null; format?: string | null }, ctx: Ctx) =>
      (await ctx.service.submit(ctx.caller, { pack: opt(args.pack), artifact: opt(args.artifact), format: opt(args.format) })).version,
    submitRulePackForReview: (_: unknown, args: { id: string; version: string }, ctx: Ctx) =>
      ctx.service.requestReview(ctx.caller, { packId: args.id, version: args.version }),
    certifyRulePack: (_: unknown, args: { id: string; version: string; notes?: string | null }, ctx: Ctx) =>
      ctx.service.certify(ctx.caller, { packId: args.id, version: args.version }, args.notes),
    rejectRulePack: (_: unknown, args: { id: string; version: string; notes: string }, ctx: Ctx) =>
      ctx.service.reject(ctx.caller, { packId: args.id, version: args.version }, args.notes),
    deprecateRulePack: (_: unknown, args: { id: string; version: string; replacementVersion?: string | null; replacement?: { id: string; version: string } | null; notes?: string | null }, ctx: Ctx) =>
      ctx.service.deprecate(ctx.caller, { packId: args.id, version: args.version }, {
        replacementVersion: args.replacementVersion,
        replacement: args.replacement ? { packId: args.replacement.id, version: args.replacement.version } : null,
        notes: args.notes,
      }),
  },
  RulePack: {
    __resolveReference: (ref: { id: string; version: string }, ctx: Ctx) => ctx.loaders.versionByRef.load({ packId: ref.id, version: ref.version }),
    id: (v: RulePackVersionRecord) => v.packId,
    submittedAt: (v: RulePackVersionRecord) => iso(v.submittedAt),
    certifiedAt: (v: RulePackVersionRecord) => iso(v.certifiedAt),
    deprecatedAt: (v: RulePackVersionRecord) => iso(v.deprecatedAt),
    definition: (v: RulePackVersionRecord) => v.pack,
    replacement: (v: RulePackVersionRecord, _: unknown, ctx: Ctx) => (v.replacement ? orNull(() => ctx.service.get(ctx.caller, v.replacement!)) : null),
    decisions: (v: RulePackVersionRecord, _: unknown, ctx: Ctx) => ctx.service.decisions(ctx.caller, { packId: v.packId, version: v.version }),
  },
  RulePackDecision: {
    createdAt: (d: DecisionRecord) => d.createdAt.toISOString(),
  },
} satisfies Resolvers;
