// Depth and cost of an operation, computed before it runs so an abusive query is refused with a
// clear error instead of fanning out across subgraphs. Cost: every field costs 1, and a list
// field multiplies the cost of its selection by its `first`/`last`/`limit`/`pageSize` argument
// (or a default list size when it has none).
import {
  getNamedType, getNullableType, isCompositeType, isListType, isObjectType, isInterfaceType, Kind,
  type FragmentDefinitionNode, type GraphQLCompositeType, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionSetNode, type ValueNode,
} from 'graphql';

export interface OperationMeasure {
  depth: number;
  cost: number;
}

const SIZE_ARGS = new Set(['first', 'last', 'limit', 'pageSize', 'page_size']);

export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown> = {},
  defaultListSize = 10,
): OperationMeasure {
  const root = schema.getRootType(operation.operation);
  if (!root) return { depth: 0, cost: 0 };

  const walk = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType, depth: number, seen: Set<string>): OperationMeasure => {
    let maxDepth = depth;
    let cost = 0;
    for (const sel of selectionSet.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value.startsWith('__')) continue;
        const fieldDef = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[sel.name.value] : undefined;
        if (!fieldDef) continue;
        const named = getNamedType(fieldDef.type);
        let childCost = 0;
        let childDepth = depth + 1;
        if (sel.selectionSet && isCompositeType(named)) {
          const child = walk(sel.selectionSet, named, depth + 1, seen);
          childCost = child.cost;
          childDepth = child.depth;
        }
        const multiplier = isListType(getNullableType(fieldDef.type)) ? listSize(sel.arguments ?? [], variables, defaultListSize) : 1;
        cost += 1 + multiplier * childCost;
        maxDepth = Math.max(maxDepth, childDepth);
      } else {
        let target: GraphQLCompositeType = parent;
        let set: SelectionSetNode | undefined;
        if (sel.kind === Kind.INLINE_FRAGMENT) {
          set = sel.selectionSet;
          const t = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
          if (t && isCompositeType(t)) target = t;
        } else {
          const name = sel.name.value;
          const frag = fragments[name];
          if (!frag || seen.has(name)) continue; // cycles are a validation error anyway
          set = frag.selectionSet;
          const t = schema.getType(frag.typeCondition.name.value);
          if (t && isCompositeType(t)) target = t;
          seen = new Set(seen).add(name);
        }
        const inner = walk(set, target, depth, seen);
        cost += inner.cost;
        maxDepth = Math.max(maxDepth, inner.depth);
      }
    }
    return { depth: maxDepth, cost };
  };
  return walk(operation.selectionSet, root, 0, new Set());
}

function listSize(args: readonly { name: { value: string }; value: ValueNode }[], variables: Record<string, unknown>, fallback: number): number {
  for (const arg of args) {
    if (!SIZE_ARGS.has(arg.name.value)) continue;
    const v = arg.value;
    if (v.kind === Kind.INT) return Math.max(1, Number(v.value));
    if (v.kind === Kind.VARIABLE && typeof variables[v.name.value] === 'number') return Math.max(1, variables[v.name.value] as number);
  }
  return fallback;
}
