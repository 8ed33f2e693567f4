// The schema registry subgraph's resolvers: thin adapters over schema-registry.service (the same
// functions as REST). GraphQL enum values are upper-case; the domain's kinds are `rule-pack`...
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { NotFoundError } from '../../platform/errors/domain-errors';
import type { SchemaRegistryGraphQLContext as SchemaRegistryContext } from './graphql.context';
import type { CompatibilityMode, SchemaKind, SchemaVersionView } from './schema-registry.types';

export type { SchemaRegistryGraphQLContext as SchemaRegistryContext } from './graphql.context';

type GraphQLKind = 'RULE_PACK' | 'WORKFLOW_PACK' | 'DATA';
const kindIn = (k: GraphQLKind | null | undefined): SchemaKind | undefined => (k ? (k.toLowerCase().replace('_', '-') as SchemaKind) : undefined);
const kindOut = (k: SchemaKind): GraphQLKind => k.toUpperCase().replace('-', '_') as GraphQLKind;
const opt = <T>(v: T | null | undefined): T | undefined => v ?? undefined;

/** A Schema object: the view plus the tenant it was read in (for its `versions` field). */
function schemaOut(view: SchemaVersionView, tenantId: string | undefined) {
  const { subject, version } = view;
  return {
    name: subject.name,
    version: version.version,
    kind: kindOut(subject.kind),
    owner: subject.owner,
    compatibility: subject.compatibility,
    definition: version.definition,
    fingerprint: version.fingerprint,
    createdAt: version.createdAt.toISOString(),
    createdBy: version.createdBy,
    readIn: tenantId,
  };
}
type SchemaOut = ReturnType<typeof schemaOut>;

async function orNull<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

type Ctx = SchemaRegistryContext;

export const resolvers = {
  JSON: JSONScalar,
  Query: {
    schemas: async (_: unknown, args: { kind?: GraphQLKind | null; first?: number | null; after?: string | null; tenantId?: string | null }, ctx: Ctx) => {
      const page = await ctx.service.listLatest(ctx.caller, { tenantId: opt(args.tenantId), kind: kindIn(args.kind), first: opt(args.first), after: opt(args.after) });
      return { nodes: page.schemas.map((view) => schemaOut(view, opt(args.tenantId))), pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor } };
    },
    schema: (_: unknown, args: { name: string; version?: string | null; tenantId?: string | null }, ctx: Ctx) => orNull(async () => schemaOut(
      await ctx.service.get(ctx.caller, { tenantId: opt(args.tenantId), name: args.name, version: args.version ?? 'latest' }), opt(args.tenantId),
    )),
  },
  Mutation: {
    registerSchema: async (_: unknown, args: { name: string; version: string; definition: unknown; kind?: GraphQLKind | null; compatibility?: CompatibilityMode | null; tenantId?: string | null }, ctx: Ctx) =>
      schemaOut(await ctx.service.register(ctx.caller, {
        tenantId: opt(args.tenantId), name: args.name, version: args.version, definition: args.definition, kind: kindIn(args.kind), compatibility: opt(args.compatibility),
      }), opt(args.tenantId)),
    setSchemaCompatibility: async (_: unknown, args: { name: string; compatibility: CompatibilityMode; tenantId?: string | null }, ctx: Ctx) => {
      const subject = await ctx.service.setCompatibility(ctx.caller, { tenantId: opt(args.tenantId), name: args.name, compatibility: args.compatibility });
      return schemaOut(await ctx.service.get(ctx.caller, { tenantId: opt(args.tenantId), name: subject.name, version: subject.latestVersion }), opt(args.tenantId));
    },
    checkSchemaCompatibility: async (_: unknown, args: { name: string; definition: unknown; tenantId?: string | null }, ctx: Ctx) => {
      const r = await ctx.service.checkCompatibility(ctx.caller, { tenantId: opt(args.tenantId), name: args.name, definition: args.definition });
      return { compatible: r.compatible, reasons: r.reasons };
    },
  },
  Schema: {
    // Another tenant's schema, or an unknown one, is null; every other error keeps its code.
    __resolveReference: async (ref: { name: string; version: string }, ctx: Ctx) => {
      const view = await ctx.loaders.schemaByRef.load({ name: ref.name, version: ref.version });
      return view ? schemaOut(view, undefined) : null;
    },
    versions: async (s: SchemaOut, _: unknown, ctx: Ctx) =>
      (await ctx.service.versions(ctx.caller, { tenantId: s.readIn, name: s.name })).versions.map((v) => v.version),
  },
};
