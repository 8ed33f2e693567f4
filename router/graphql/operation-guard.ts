// The router's checks on every operation (HTTP and WebSocket alike), after parsing and
// validation and before any subgraph is called: depth and cost limits, then the supergraph's
// @authenticated/@requiresScopes rules. An operation touching a protected field is refused
// whole (Apollo's router can null the fields instead; refusing is simpler to reason about).
import {
  GraphQLError, getNamedType, Kind, TypeInfo, visit, visitWithTypeInfo,
  type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { AccessRule, AuthRules } from './auth-rules';
import { measureOperation } from './operation-limits';

export interface GuardLimits {
  maxDepth: number;
  maxCost: number;
  defaultListSize: number;
}

export function guardOperation(
  schema: GraphQLSchema,
  rules: AuthRules,
  limits: GuardLimits,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  auth: AuthContext | undefined,
): GraphQLError | undefined {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;

  const { depth, cost } = measureOperation(schema, operation, fragments, variables ?? {}, limits.defaultListSize);
  if (depth > limits.maxDepth) {
    return new GraphQLError(`Query is too deep: depth ${depth} exceeds the limit of ${limits.maxDepth}`, {
      extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: limits.maxDepth, http: { status: 400 } },
    });
  }
  if (cost > limits.maxCost) {
    return new GraphQLError(`Query is too expensive: cost ${cost} exceeds the limit of ${limits.maxCost}`, {
      extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost: limits.maxCost, http: { status: 400 } },
    });
  }
  return checkAccess(schema, rules, document, operation, auth);
}

function checkAccess(schema: GraphQLSchema, rules: AuthRules, document: DocumentNode, operation: OperationDefinitionNode, auth: AuthContext | undefined): GraphQLError | undefined {
  if (rules.fields.size === 0 && rules.types.size === 0) return undefined;
  let denied: GraphQLError | undefined;
  const typeInfo = new TypeInfo(schema);
  const check = (rule: AccessRule | undefined, what: string) => {
    if (!rule || denied) return;
    if (!auth) {
      denied = new GraphQLError(`Authentication required to access ${what}`, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
    } else if (rule.scopes && rule.scopes.length > 0 && !rule.scopes.some((set) => set.every((s) => auth.scopes.includes(s)))) {
      denied = new GraphQLError(`Missing scope to access ${what}: requires ${rule.scopes.map((s) => s.join(' and ')).join(' or ')}`, { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
    }
  };
  // Only the operation and the fragments it can reach matter; visiting them all is harmless
  // because validation has already rejected unused fragments.
  const docToVisit: DocumentNode = { kind: Kind.DOCUMENT, definitions: document.definitions.filter((d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION) };
  visit(docToVisit, visitWithTypeInfo(typeInfo, {
    Field() {
      const parent = typeInfo.getParentType();
      const field = typeInfo.getFieldDef();
      if (!parent || !field) return;
      check(rules.fields.get(`${parent.name}.${field.name}`), `${parent.name}.${field.name}`);
      const named = getNamedType(field.type);
      check(rules.types.get(named.name), named.name);
    },
  }));
  return denied;
}
