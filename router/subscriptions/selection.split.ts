// Cutting a client's selection down to what one subgraph resolves. Fields another subgraph
// contributes are left out, and in their place the subgraph is asked for `__typename` and the
// entity's key fields (under router-private aliases), so those fields can be fetched afterwards
// through `_entities` on the subgraph that owns them (entity.completion.ts). Fragment spreads are
// inlined first, so one walk sees every field. Limits: object entity types with simple
// (non-nested) keys; abstract types are passed through whole.
import {
  getNamedType,
  isObjectType,
  isInterfaceType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type InlineFragmentNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import type { SupergraphModel } from '../supergraph/supergraph.model';

export const TYPENAME_ALIAS = '__router_typename';
export const keyAlias = (field: string): string => `__router_key_${field}`;

const field = (name: string, alias?: string): FieldNode => ({
  kind: Kind.FIELD,
  name: { kind: Kind.NAME, value: name },
  ...(alias ? { alias: { kind: Kind.NAME, value: alias } } : {}),
});

/** The selection with every fragment spread replaced by an equivalent inline fragment. */
export function inlineFragments(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): SelectionSetNode {
  const selections: SelectionNode[] = [];
  for (const sel of selectionSet.selections) {
    if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const frag = fragments[sel.name.value];
      if (!frag || seen.has(frag.name.value)) continue;
      selections.push({
        kind: Kind.INLINE_FRAGMENT,
        typeCondition: frag.typeCondition,
        directives: sel.directives,
        selectionSet: inlineFragments(frag.selectionSet, fragments, new Set(seen).add(frag.name.value)),
      });
    } else if (sel.selectionSet) {
      selections.push({ ...sel, selectionSet: inlineFragments(sel.selectionSet, fragments, seen) } as SelectionNode);
    } else {
      selections.push(sel);
    }
  }
  return { kind: Kind.SELECTION_SET, selections };
}

/** Return type name of `parent.field` in the API schema. */
export function fieldTypeName(schema: GraphQLSchema, parent: string, fieldName: string): string | undefined {
  const type = schema.getType(parent);
  if (!type || !(isObjectType(type) || isInterfaceType(type))) return undefined;
  const def = type.getFields()[fieldName];
  return def ? getNamedType(def.type).name : undefined;
}

export function splitForSubgraph(
  model: SupergraphModel,
  subgraph: string,
  parentType: string,
  selectionSet: SelectionSetNode,
): SelectionSetNode {
  const schema = model.apiSchema;
  // Subscription roots may select one field only, so no __typename there.
  const selections: SelectionNode[] = parentType === 'Subscription' ? [] : [field('__typename', TYPENAME_ALIAS)];
  let missing = false;
  for (const sel of selectionSet.selections) {
    if (sel.kind === Kind.FIELD) {
      const name = sel.name.value;
      if (name.startsWith('__')) {
        selections.push(sel);
      } else if (model.resolvesField(subgraph, parentType, name) || isAbstract(schema, parentType)) {
        const child = sel.selectionSet ? fieldTypeName(schema, parentType, name) : undefined;
        selections.push(
          child && sel.selectionSet
            ? { ...sel, selectionSet: splitForSubgraph(model, subgraph, child, sel.selectionSet) }
            : sel,
        );
      } else {
        missing = true;
      }
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const cond = sel.typeCondition?.name.value ?? parentType;
      if (!model.hasType(subgraph, cond)) continue;
      const inner: InlineFragmentNode = {
        ...sel,
        selectionSet: splitForSubgraph(model, subgraph, cond, sel.selectionSet),
      };
      selections.push(inner);
    }
  }
  if (missing) {
    for (const key of allKeyFields(model, parentType)) {
      if (model.resolvesField(subgraph, parentType, key)) selections.push(field(key, keyAlias(key)));
    }
  }
  return { kind: Kind.SELECTION_SET, selections };
}

/** Every field used in any subgraph's key for the type (simple keys). */
export function allKeyFields(model: SupergraphModel, typeName: string): string[] {
  const keys = new Set<string>();
  for (const sg of model.subgraphNames())
    for (const key of model.entityKeys(sg, typeName, { resolvable: false })) for (const f of key) keys.add(f);
  return [...keys];
}

function isAbstract(schema: GraphQLSchema, typeName: string): boolean {
  const t = schema.getType(typeName);
  return Boolean(t) && !isObjectType(t);
}
