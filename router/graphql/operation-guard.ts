// The router's checks on every operation (HTTP and WebSocket alike), after parsing and
// validation and before any subgraph is called: depth, alias, page-size and cost limits
// (operation-limits.ts measures them), then the supergraph's
// @authenticated/@requiresScopes rules. An operation touching a protected field is refused
// whole (Apollo's router can null the fields instead; refusing is simpler to reason about).
import {
  GraphQLError,
  getNamedType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { AccessRule, AuthRules } from './auth-rules';
import { measureOperation, type OperationMeasure } from './operation-limits';

export interface GuardLimits {
  maxDepth: number;
  maxCost: number;
  defaultListSize: number;
  /** Most aliased fields one operation may have (fragments expanded). */
  maxAliases: number;
  /** Largest page size (`first`/`last`/`limit`...) a field may be asked for. */
  maxPageSize: number;
}

/** What does not change between runs of one parsed operation (Apollo Server reuses the parsed
 * document for a repeated query, so this is computed once per distinct operation). */
interface Analysis extends OperationMeasure {
  /** Cost and page sizes depend on variable values (a list size given as a variable): recomputed per request. */
  costUsesVariables: boolean;
  touched: { rule: AccessRule; what: string }[];
}

const analyses = new WeakMap<AuthRules, WeakMap<OperationDefinitionNode, Analysis>>();

export function guardOperation(
  schema: GraphQLSchema,
  rules: AuthRules,
  limits: GuardLimits,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  auth: AuthContext | undefined,
): GraphQLError | undefined {
  let perRules = analyses.get(rules);
  if (!perRules) analyses.set(rules, (perRules = new WeakMap()));
  let analysis = perRules.get(operation);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  if (!analysis || analysis.costUsesVariables) {
    for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  }
  const settings = { defaultListSize: limits.defaultListSize };
  if (!analysis) {
    const measured = measureOperation(schema, operation, fragments, {}, settings);
    const costUsesVariables =
      JSON.stringify(operation.selectionSet).includes('"Variable"') || Object.keys(fragments).length > 0;
    analysis = { ...measured, costUsesVariables, touched: touchedRules(schema, rules, document, operation) };
    perRules.set(operation, analysis);
  }
  const { depth, aliases } = analysis;
  const { cost, largestPage } = analysis.costUsesVariables
    ? measureOperation(schema, operation, fragments, variables ?? {}, settings)
    : analysis;
  if (depth > limits.maxDepth) {
    return new GraphQLError(`Query is too deep: depth ${depth} exceeds the limit of ${limits.maxDepth}`, {
      extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth: limits.maxDepth, http: { status: 400 } },
    });
  }
  if (aliases > limits.maxAliases) {
    return new GraphQLError(`Query has too many aliases: ${aliases} exceeds the limit of ${limits.maxAliases}`, {
      extensions: { code: 'QUERY_TOO_COMPLEX', aliases, maxAliases: limits.maxAliases, http: { status: 400 } },
    });
  }
  // Refused before the cost, with its own message: asking for a page larger than any subgraph
  // serves is a mistake to name, not a budget question.
  if (largestPage && largestPage.size > limits.maxPageSize) {
    const { field, argument, size } = largestPage;
    return new GraphQLError(
      `Argument '${argument}' of ${field} is ${size}; a page holds at most ${limits.maxPageSize}`,
      {
        extensions: {
          code: 'BAD_USER_INPUT',
          field,
          argument,
          pageSize: size,
          maxPageSize: limits.maxPageSize,
          http: { status: 400 },
        },
      },
    );
  }
  if (cost > limits.maxCost) {
    return new GraphQLError(`Query is too expensive: cost ${cost} exceeds the limit of ${limits.maxCost}`, {
      extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost: limits.maxCost, http: { status: 400 } },
    });
  }
  for (const { rule, what } of analysis.touched) {
    if (!auth)
      return new GraphQLError(`Authentication required to access ${what}`, {
        extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
      });
    if (
      rule.scopes &&
      rule.scopes.length > 0 &&
      !rule.scopes.some((set) => set.every((sc) => auth.scopes.includes(sc)))
    ) {
      return new GraphQLError(
        `Missing scope to access ${what}: requires ${rule.scopes.map((sc) => sc.join(' and ')).join(' or ')}`,
        { extensions: { code: 'FORBIDDEN', http: { status: 403 } } },
      );
    }
  }
  return undefined;
}

/** Every @authenticated/@requiresScopes rule the operation touches, in document order. */
function touchedRules(
  schema: GraphQLSchema,
  rules: AuthRules,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): { rule: AccessRule; what: string }[] {
  const touched: { rule: AccessRule; what: string }[] = [];
  if (rules.fields.size === 0 && rules.types.size === 0) return touched;
  const typeInfo = new TypeInfo(schema);
  const check = (rule: AccessRule | undefined, what: string) => {
    if (rule) touched.push({ rule, what });
  };
  // Only the operation and the fragments it can reach matter; visiting them all is harmless
  // because validation has already rejected unused fragments.
  const docToVisit: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: document.definitions.filter((d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION),
  };
  visit(
    docToVisit,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (!parent || !field) return;
        check(rules.fields.get(`${parent.name}.${field.name}`), `${parent.name}.${field.name}`);
        const named = getNamedType(field.type);
        check(rules.types.get(named.name), named.name);
      },
    }),
  );
  return touched;
}
