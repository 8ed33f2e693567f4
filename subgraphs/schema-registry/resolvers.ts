// The schema registry subgraph's resolvers: thin adapters over schema-registry.service (the same
// functions as REST). GraphQL enum values are upper-case; the domain's kinds are `rule-pack`...
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Resolvers, SchemaKind as GraphQLKind } from './resolvers.generated';
import type { SchemaKind, SchemaVersionView } from './schema-registry.types';

export type { SchemaRegistryGraphQLContext as SchemaRegistryContext } from './graphql.context';

const KIND_IN: Record<GraphQLKind, SchemaKind> = {
  RULE_PACK: 'rule-pack',
  WORKFLOW_PACK: 'workflow-pack',
  DATA: 'data',
};
const KIND_OUT: Record<SchemaKind, GraphQLKind> = {
  'rule-pack': 'RULE_PACK',
  'workflow-pack': 'WORKFLOW_PACK',
  data: 'DATA',
};
const kindIn = (k: GraphQLKind | null | undefined): SchemaKind | undefined => (k ? KIND_IN[k] : undefined);

/** A Schema object: the view plus the tenant it was read in (for its `versions` field). */
function schemaOut(view: SchemaVersionView, tenantId: string | undefined) {
  const { subject, version } = view;
  return {
    name: subject.name,
    version: version.version,
    kind: KIND_OUT[subject.kind],
    owner: subject.owner,
    compatibility: subject.compatibility,
    definition: version.definition,
    fingerprint: version.fingerprint,
    createdAt: version.createdAt.toISOString(),
    createdBy: version.createdBy,
    readIn: tenantId,
  };
}
/** What a Schema resolves from (the generated types' mapper). */
export type SchemaNode = ReturnType<typeof schemaOut>;

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    schemas: async (_, args, ctx) => {
      const page = await ctx.service.listLatest(ctx.caller, {
        tenantId: opt(args.tenantId),
        kind: kindIn(args.kind),
        first: opt(args.first),
        after: opt(args.after),
      });
      return {
        nodes: page.schemas.map((view) => schemaOut(view, opt(args.tenantId))),
        pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor },
      };
    },
    schema: (_, args, ctx) =>
      orNull(async () =>
        schemaOut(
          await ctx.service.get(ctx.caller, {
            tenantId: opt(args.tenantId),
            name: args.name,
            version: args.version ?? 'latest',
          }),
          opt(args.tenantId),
        ),
      ),
  },
  Mutation: {
    registerSchema: async (_, args, ctx) =>
      schemaOut(
        await ctx.service.register(ctx.caller, {
          tenantId: opt(args.tenantId),
          name: args.name,
          version: args.version,
          definition: args.definition,
          kind: kindIn(args.kind),
          compatibility: opt(args.compatibility),
        }),
        opt(args.tenantId),
      ),
    setSchemaCompatibility: async (_, args, ctx) => {
      const subject = await ctx.service.setCompatibility(ctx.caller, {
        tenantId: opt(args.tenantId),
        name: args.name,
        compatibility: args.compatibility,
      });
      return schemaOut(
        await ctx.service.get(ctx.caller, {
          tenantId: opt(args.tenantId),
          name: subject.name,
          version: subject.latestVersion,
        }),
        opt(args.tenantId),
      );
    },
    checkSchemaCompatibility: async (_, args, ctx) => {
      const r = await ctx.service.checkCompatibility(ctx.caller, {
        tenantId: opt(args.tenantId),
        name: args.name,
        definition: args.definition,
      });
      return { compatible: r.compatible, reasons: r.reasons };
    },
  },
  Schema: {
    // Another tenant's schema, or an unknown one, is null; every other error keeps its code.
    __resolveReference: async (ref, ctx) => {
      const view = await ctx.loaders.schemaByRef.load({ name: ref.name, version: ref.version });
      return view ? schemaOut(view, undefined) : null;
    },
    versions: async (s, _, ctx) =>
      (await ctx.service.versions(ctx.caller, { tenantId: s.readIn, name: s.name })).versions.map((v) => v.version),
  },
} satisfies Resolvers;
