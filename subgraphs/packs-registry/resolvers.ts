// The packs registry subgraph's resolvers: thin adapters over pack.service (the same functions as
// the REST door). Enum values are the domain's lower-case names inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import type { PacksGraphQLContext as Ctx } from './graphql.context';
import type { DependencyGraph } from './pack-dependencies';
import { encodePosition } from './pack.rules';
import type { PackEntry, PackRef } from './pack.types';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const ref = (r: PackRef | null) => (r ? { packId: r.pack_id, version: r.version } : null);

function graphOut(g: DependencyGraph) {
  return { root: g.root, edges: g.edges, nodes: g.nodes.map((n) => ({ ...n, replacement: ref(n.replacement) })) };
}

export const resolvers = {
  JSON: JSONScalar,
  PackKind: { WORKFLOW: 'workflow', RULE: 'rule' },
  PackStatus: { DRAFT: 'draft', CERTIFIED: 'certified', DEPRECATED: 'deprecated' },
  PackArtifactFormat: { JSON: 'json', YAML: 'yaml' },
  DependencyKind: { WORKFLOW: 'workflow', RULE: 'rule', SCHEMA: 'schema' },
  Query: {
    packs: async (_: unknown, args: { kind?: string | null; status?: string | null; first?: number | null; after?: string | null }, ctx: Ctx) => {
      const page = await ctx.packs.list(ctx.caller, { kind: opt(args.kind), status: opt(args.status), first: opt(args.first), after: opt(args.after) });
      return {
        edges: page.entries.map((e) => ({ cursor: encodePosition(e.packId, e.version), node: e })),
        nodes: page.entries,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
      };
    },
    pack: (_: unknown, args: { packId: string; version?: string | null }, ctx: Ctx) => orNull(args.version == null
      ? ctx.packs.latestCertified(ctx.caller, { packId: args.packId })
      : ctx.packs.get(ctx.caller, { packId: args.packId, version: args.version })),
    packVersions: (_: unknown, args: { packId: string }, ctx: Ctx) => orNull(ctx.packs.versions(ctx.caller, { packId: args.packId })).then((v) => v ?? []),
  },
  Mutation: {
    submitPack: async (_: unknown, { input }: { input: { artifact: unknown; format: string; tenantId?: string | null } }, ctx: Ctx) => {
      const { entry, created } = await ctx.packs.submit(ctx.caller, { artifact: input.artifact, format: input.format, tenantId: opt(input.tenantId) });
      return { pack: entry, created };
    },
    certifyPack: (_: unknown, args: { packId: string; version: string }, ctx: Ctx) => ctx.packs.certify(ctx.caller, args),
    deprecatePack: (_: unknown, args: { packId: string; version: string; replacementVersion?: string | null }, ctx: Ctx) =>
      ctx.packs.deprecate(ctx.caller, { packId: args.packId, version: args.version, replacementVersion: opt(args.replacementVersion) }),
  },
  PackEntry: {
    __resolveReference: (r: { packId: string; version: string }, ctx: Ctx) => ctx.loaders.entryByRef.load({ packId: r.packId, version: r.version }),
    submittedAt: (e: PackEntry) => e.submittedAt.toISOString(),
    certifiedAt: (e: PackEntry) => iso(e.certifiedAt),
    deprecatedAt: (e: PackEntry) => iso(e.deprecatedAt),
    replacement: (e: PackEntry) => ref(e.replacement),
    artifact: (e: PackEntry) => ({
      format: e.artifactFormat, sha256: e.artifactSha256, service: e.artifactPointer.service, content: e.artifactContent, source: e.artifactSource,
    }),
    dependencies: (e: PackEntry) => ({
      rulePacks: e.dependencies.rule_packs.map((r) => ({ __typename: 'RulePack', id: r.pack_id, version: r.version })),
      schemas: e.dependencies.schemas,
      workflowPacks: e.dependencies.workflow_packs.map(ref),
    }),
    dependencyGraph: async (e: PackEntry, _: unknown, ctx: Ctx) => graphOut(await ctx.packs.dependencies(ctx.caller, { packId: e.packId, version: e.version })),
  },
} satisfies Resolvers;
