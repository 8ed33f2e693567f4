// Depth, cost and alias count of an operation, computed before it runs so an abusive query is
// refused with a clear error instead of fanning out across subgraphs.
//
// Cost is the number of fields the answer can hold: every field and alias costs 1 (`__typename`
// too), and a list field multiplies the cost of its selection by its page size, nested lists
// multiplying each other. The page size is the field's `first`/`last`/`limit`/`pageSize`
// argument, given as a literal or a variable (else the variable's default, else the argument's
// schema default). A Relay connection (a non-list field taking a page size, e.g.
// `ledgerEvents(first: 1000)`) hands its size down to the list fields directly under it
// (`edges`, `nodes`), which have no size of their own. A list with no size at all counts as
// `defaultListSize`. Introspection (`__schema`, `__type`) is bounded by the schema, not by data:
// each of its fields costs 1 and nothing multiplies.
//
// Named fragments are measured once per (fragment, inherited page size), so a document that
// spreads the same fragments many times over costs linear time to measure, not exponential.
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export interface MeasureSettings {
  /** Size assumed for a list with no page-size argument and no connection above it. */
  defaultListSize: number;
}

export interface OversizedPage {
  /** `Type.field` the argument is on. */
  field: string;
  argument: string;
  size: number;
}

export interface OperationMeasure {
  depth: number;
  cost: number;
  /** Aliased fields, counted in the operation with its fragments expanded. */
  aliases: number;
  /** The largest page size asked for anywhere in the operation (to compare with the cap). */
  largestPage?: OversizedPage;
}

/** Argument names that say how many items a list field (or connection) returns. */
const SIZE_ARGS = new Set(['first', 'last', 'limit', 'pageSize', 'page_size']);

interface Measured {
  depth: number;
  cost: number;
  aliases: number;
}

export function measureOperation(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown> = {},
  settings: MeasureSettings = { defaultListSize: 10 },
): OperationMeasure {
  const root = schema.getRootType(operation.operation);
  if (!root) return { depth: 0, cost: 0, aliases: 0 };

  const variableDefaults = new Map<string, number>();
  for (const def of operation.variableDefinitions ?? []) {
    if (def.defaultValue?.kind === Kind.INT)
      variableDefaults.set(def.variable.name.value, Number(def.defaultValue.value));
  }
  let largestPage: OversizedPage | undefined;
  const fragmentMemo = new Map<string, Measured>();

  const sizeOf = (
    parent: GraphQLCompositeType,
    field: GraphQLField<unknown, unknown>,
    args: readonly { name: { value: string }; value: ValueNode }[],
  ): number | undefined => {
    for (const argDef of field.args) {
      if (!SIZE_ARGS.has(argDef.name)) continue;
      const given = args.find((a) => a.name.value === argDef.name)?.value;
      const size = given
        ? (valueOf(given, variables, variableDefaults) ?? numberOr(argDef.defaultValue))
        : numberOr(argDef.defaultValue);
      if (size === undefined) continue;
      if (!largestPage || size > largestPage.size)
        largestPage = { field: `${parent.name}.${field.name}`, argument: argDef.name, size };
      return Math.max(0, size);
    }
    return undefined;
  };

  const walk = (
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    inheritedSize: number | undefined,
    seen: ReadonlySet<string>,
  ): Measured => {
    let depth = 0;
    let cost = 0;
    let aliases = 0;
    // The same fragment spread twice in one selection is collected once by the executor.
    const spreadHere = new Set<string>();
    for (const sel of selectionSet.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.alias) aliases += 1;
        const name = sel.name.value;
        if (name === '__schema' || name === '__type') {
          const flat = countFields(sel.selectionSet, fragments, new Set());
          cost += 1 + flat.fields;
          aliases += flat.aliases;
          depth = Math.max(depth, 1);
          continue;
        }
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (!field) {
          // `__typename` (on any composite type, unions included): one field, no selection.
          cost += 1;
          depth = Math.max(depth, 1);
          continue;
        }
        const ownSize = sizeOf(parent, field, sel.arguments ?? []);
        const isList = isListType(getNullableType(field.type));
        const named = getNamedType(field.type);
        let child: Measured = { depth: 0, cost: 0, aliases: 0 };
        if (sel.selectionSet && isCompositeType(named)) {
          // A connection's page size sizes the lists right under it (edges, nodes).
          child = walk(sel.selectionSet, named, isList ? undefined : ownSize, seen);
        }
        const multiplier = isList ? (ownSize ?? inheritedSize ?? settings.defaultListSize) : 1;
        cost += 1 + multiplier * child.cost;
        depth = Math.max(depth, 1 + child.depth);
        aliases += child.aliases;
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const t = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        const inner = walk(sel.selectionSet, t && isCompositeType(t) ? t : parent, inheritedSize, seen);
        cost += inner.cost;
        depth = Math.max(depth, inner.depth);
        aliases += inner.aliases;
      } else {
        const name = sel.name.value;
        const frag = fragments[name];
        if (!frag || seen.has(name) || spreadHere.has(name)) continue; // cycles are a validation error anyway
        spreadHere.add(name);
        const key = `${name}\n${inheritedSize ?? ''}`;
        let inner = fragmentMemo.get(key);
        if (!inner) {
          const t = schema.getType(frag.typeCondition.name.value);
          inner = walk(frag.selectionSet, t && isCompositeType(t) ? t : parent, inheritedSize, new Set(seen).add(name));
          fragmentMemo.set(key, inner);
        }
        cost += inner.cost;
        depth = Math.max(depth, inner.depth);
        aliases += inner.aliases;
      }
    }
    return { depth, cost, aliases };
  };

  const measured = walk(operation.selectionSet, root, undefined, new Set());
  return { ...measured, largestPage };
}

/** An Int literal, or a variable's integer value (else its default); undefined otherwise. */
function valueOf(
  value: ValueNode,
  variables: Record<string, unknown>,
  defaults: Map<string, number>,
): number | undefined {
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind !== Kind.VARIABLE) return undefined;
  const given = variables[value.name.value];
  if (given === undefined) return defaults.get(value.name.value);
  return numberOr(given);
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Fields and aliases in an introspection selection, each fragment counted once: its size
 * is bounded by the schema, so nothing multiplies. */
function countFields(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  counted: Set<string>,
): { fields: number; aliases: number } {
  let fields = 0;
  let aliases = 0;
  for (const sel of selectionSet?.selections ?? []) {
    let inner: SelectionSetNode | undefined;
    if (sel.kind === Kind.FRAGMENT_SPREAD) {
      if (counted.has(sel.name.value)) continue;
      counted.add(sel.name.value);
      inner = fragments[sel.name.value]?.selectionSet;
    } else {
      inner = sel.selectionSet;
      if (sel.kind === Kind.FIELD) {
        fields += 1;
        if (sel.alias) aliases += 1;
      }
    }
    const nested = countFields(inner, fragments, counted);
    fields += nested.fields;
    aliases += nested.aliases;
  }
  return { fields, aliases };
}
