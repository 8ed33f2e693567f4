// One parsed supergraph: the API schema clients see, each subgraph's own schema (which fields it
// resolves, its entity keys) and the @authenticated/@requiresScopes rules. The router's own
// features (subscriptions, uploads, directive enforcement) read it; a new one replaces it
// wholesale on reload. Building it also validates an SDL before the gateway is handed it.
import { Supergraph, type Subgraph } from '@apollo/federation-internals';
import type { GraphQLSchema } from 'graphql';
import { authRulesFromSupergraph, type AuthRules } from '../graphql/auth-rules';

export class SupergraphModel {
  private constructor(
    readonly sdl: string,
    /** What ApolloGateway is given (see `forGateway`). */
    readonly gatewaySdl: string,
    readonly apiSchema: GraphQLSchema,
    private readonly subgraphs: Map<string, Subgraph>,
    readonly authRules: AuthRules,
  ) {}

  /** Throws when the SDL is not a valid supergraph. */
  static parse(sdl: string): SupergraphModel {
    const gatewaySdl = forGateway(sdl);
    const supergraph = Supergraph.build(gatewaySdl);
    const subgraphs = new Map<string, Subgraph>();
    for (const subgraph of supergraph.subgraphs()) subgraphs.set(subgraph.name, subgraph);
    return new SupergraphModel(
      sdl,
      gatewaySdl,
      supergraph.apiSchema().toGraphQLJSSchema(),
      subgraphs,
      authRulesFromSupergraph(sdl),
    );
  }

  subgraphNames(): string[] {
    return [...this.subgraphs.keys()];
  }

  routingUrl(subgraph: string): string | undefined {
    return this.subgraphs.get(subgraph)?.url;
  }

  /** True when `subgraph` itself resolves `type.field` (defined there and not @external). */
  resolvesField(subgraph: string, typeName: string, fieldName: string): boolean {
    const sg = this.subgraphs.get(subgraph);
    const type = sg?.schema.type(typeName);
    if (!sg || !type || (type.kind !== 'ObjectType' && type.kind !== 'InterfaceType')) return false;
    const field = type.field(fieldName);
    return Boolean(field) && !sg.metadata().isFieldExternal(field!);
  }

  hasType(subgraph: string, typeName: string): boolean {
    return Boolean(this.subgraphs.get(subgraph)?.schema.type(typeName));
  }

  /** Field lists of `typeName`'s keys in `subgraph` (simple, non-nested keys only); empty when not an entity there. */
  entityKeys(subgraph: string, typeName: string, options: { resolvable: boolean }): string[][] {
    const sg = this.subgraphs.get(subgraph);
    const type = sg?.schema.type(typeName);
    if (!sg || !type || type.kind !== 'ObjectType') return [];
    const keys: string[][] = [];
    for (const key of type.appliedDirectivesOf(sg.metadata().keyDirective())) {
      const args = key.arguments() as { fields: string; resolvable?: boolean };
      if (options.resolvable && args.resolvable === false) continue;
      const fields = args.fields.trim().split(/\s+/);
      if (fields.every((f) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(f))) keys.push(fields);
    }
    return keys;
  }

  /** The subgraph that resolves a root field (Query/Mutation/Subscription). */
  ownerOf(typeName: string, fieldName: string): string | undefined {
    return this.subgraphNames().find((name) => this.resolvesField(name, typeName, fieldName));
  }
}

/**
 * ApolloGateway 2.14 refuses to load a supergraph that links a `for: SECURITY` feature it does
 * not implement (@authenticated, @requiresScopes): measured, it fails at load. The router
 * enforces both itself (graphql/operation-guard.ts), from the original SDL, so the gateway is
 * given the same supergraph with those two links' purpose dropped; nothing else changes.
 */
export function forGateway(sdl: string): string {
  return sdl.replace(
    /(@link\(url:\s*"https:\/\/specs\.apollo\.dev\/(?:authenticated|requiresScopes)\/v[\d.]+"(?:,\s*as:\s*"\w+")?),\s*for:\s*SECURITY\)/g,
    '$1)',
  );
}
