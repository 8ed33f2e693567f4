// The packs registry subgraph's resolvers: thin adapters over pack.service (the same functions as
// the REST door). Enum values are the domain's lower-case names inside, GraphQL's upper case outside.
import { JSONScalar } from '../../platform/graphql/json-scalar';
import type { DependencyGraph } from './pack-dependencies';
import { encodePosition } from './pack.rules';
import type { PackRef } from './pack.types';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const refOut = (r: PackRef) => ({ packId: r.pack_id, version: r.version });
const ref = (r: PackRef | null) => (r ? refOut(r) : null);

function graphOut(g: DependencyGraph) {
  return { root: g.root, edges: g.edges, nodes: g.nodes.map((n) => ({ ...n, replacement: ref(n.replacement) })) };
}

export const resolvers = {
  JSON: JSONScalar,
  PackKind: { WORKFLOW: 'workflow', RULE: 'rule', DATAFLOW: 'dataflow' },
  PackStatus: { DRAFT: 'draft', CERTIFIED: 'certified', DEPRECATED: 'deprecated' },
  PackArtifactFormat: { JSON: 'json', YAML: 'yaml' },
  DependencyKind: { WORKFLOW: 'workflow', RULE: 'rule', SCHEMA: 'schema' },
  Query: {
    packs: async (_, args, ctx) => {
      const page = await ctx.packs.list(ctx.caller, {
        kind: opt(args.kind),
        status: opt(args.status),
        first: opt(args.first),
        after: opt(args.after),
      });
      return {
        edges: page.entries.map((e) => ({ cursor: encodePosition(e.packId, e.version), node: e })),
        nodes: page.entries,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
      };
    },
    pack: (_, args, ctx) =>
      orNull(
        args.version == null
          ? ctx.packs.latestCertified(ctx.caller, { packId: args.packId })
          : ctx.packs.get(ctx.caller, { packId: args.packId, version: args.version }),
      ),
    packVersions: (_, args, ctx) =>
      orNull(ctx.packs.versions(ctx.caller, { packId: args.packId })).then((v) => v ?? []),
  },
  Mutation: {
    submitPack: async (_, { input }, ctx) => {
      const { entry, created } = await ctx.packs.submit(ctx.caller, {
        artifact: input.artifact,
        format: input.format,
        tenantId: opt(input.tenantId),
      });
      return { pack: entry, created };
    },
    certifyPack: (_, args, ctx) => ctx.packs.certify(ctx.caller, args),
    deprecatePack: (_, args, ctx) =>
      ctx.packs.deprecate(ctx.caller, {
        packId: args.packId,
        version: args.version,
        replacementVersion: opt(args.replacementVersion),
      }),
  },
  PackEntry: {
    __resolveReference: (r, ctx) => ctx.loaders.entryByRef.load({ packId: r.packId, version: r.version }),
    submittedAt: (e) => e.submittedAt.toISOString(),
    certifiedAt: (e) => iso(e.certifiedAt),
    deprecatedAt: (e) => iso(e.deprecatedAt),
    replacement: (e) => ref(e.replacement),
    artifact: (e) => ({
      format: e.artifactFormat,
      sha256: e.artifactSha256,
      service: e.artifactPointer.service,
      content: e.artifactContent,
      source: e.artifactSource,
    }),
    dependencies: (e) => ({
      rulePacks: e.dependencies.rule_packs.map((r) => ({ __typename: 'RulePack', id: r.pack_id, version: r.version })),
      schemas: e.dependencies.schemas,
      workflowPacks: e.dependencies.workflow_packs.map(refOut),
    }),
    dependencyGraph: async (e, _, ctx) =>
      graphOut(await ctx.packs.dependencies(ctx.caller, { packId: e.packId, version: e.version })),
  },
} satisfies Resolvers;
