// The registry subgraph's resolvers: thin adapters over rulepack.service (the same methods as REST).
// GraphQL names a pack `id`; the domain calls it `packId`.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { packPosition, type RulePackPage } from './rulepack-registry.service';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

function connection(page: RulePackPage) {
  return {
    edges: page.versions.map((v) => ({ cursor: packPosition.encode(`${v.packId} ${v.version}`), node: v })),
    nodes: page.versions,
    pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
  };
}

/** What a RulePackConnection resolves from (the generated types' mapper). */
export type RulePackConnectionNode = ReturnType<typeof connection>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const resolvers = {
  JSON: JSONScalar,
  // GraphQL's enum values are upper case like every subgraph's; the domain keeps spec 01's words.
  RulePackStatus: { DRAFT: 'draft', REVIEW: 'review', CERTIFIED: 'certified', DEPRECATED: 'deprecated' },
  RulePackArtifactFormat: { YAML: 'yaml', JSON: 'json' },
  Query: {
    rulePacks: async (_, args, ctx) =>
      connection(
        await ctx.service.list(ctx.caller, {
          status: opt(args.status),
          first: opt(args.first),
          after: opt(args.after),
        }),
      ),
    rulePack: (_, args, ctx) =>
      orNull(() =>
        args.version == null
          ? ctx.service.latestCertified(ctx.caller, args.id)
          : ctx.service.get(ctx.caller, { packId: args.id, version: args.version }),
      ),
  },
  Mutation: {
    submitRulePack: async (_, args, ctx) =>
      (
        await ctx.service.submit(ctx.caller, {
          pack: opt(args.pack),
          artifact: opt(args.artifact),
          format: opt(args.format),
        })
      ).version,
    submitRulePackForReview: (_, args, ctx) =>
      ctx.service.requestReview(ctx.caller, { packId: args.id, version: args.version }),
    certifyRulePack: (_, args, ctx) =>
      ctx.service.certify(ctx.caller, { packId: args.id, version: args.version }, args.notes),
    rejectRulePack: (_, args, ctx) =>
      ctx.service.reject(ctx.caller, { packId: args.id, version: args.version }, args.notes),
    deprecateRulePack: (_, args, ctx) =>
      ctx.service.deprecate(
        ctx.caller,
        { packId: args.id, version: args.version },
        {
          replacementVersion: args.replacementVersion,
          replacement: args.replacement ? { packId: args.replacement.id, version: args.replacement.version } : null,
          notes: args.notes,
        },
      ),
  },
  RulePack: {
    __resolveReference: (ref, ctx) => ctx.loaders.versionByRef.load({ packId: ref.id, version: ref.version }),
    id: (v) => v.packId,
    submittedAt: (v) => v.submittedAt.toISOString(),
    certifiedAt: (v) => iso(v.certifiedAt),
    deprecatedAt: (v) => iso(v.deprecatedAt),
    definition: (v) => v.pack,
    replacement: (v, _, ctx) => {
      const replacement = v.replacement;
      return replacement ? orNull(() => ctx.service.get(ctx.caller, replacement)) : null;
    },
    decisions: (v, _, ctx) => ctx.service.decisions(ctx.caller, { packId: v.packId, version: v.version }),
  },
  RulePackDecision: {
    createdAt: (d) => d.createdAt.toISOString(),
  },
} satisfies Resolvers;
