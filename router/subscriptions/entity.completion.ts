// Per subscription event: fill in the fields other subgraphs contribute. Walking the client's
// selection over the event's data, each object whose type has fields its current subgraph did not
// resolve is batched by type into one `_entities` call on the subgraph that owns those fields (the
// way Apollo's query planner does for queries); the answers are merged in and walked again, so
// fields several hops away are reached too.
import { Kind, print, type FieldNode, type SelectionSetNode } from 'graphql';
import type { SupergraphModel } from '../supergraph/supergraph.model';
import { fieldTypeName, keyAlias, splitForSubgraph, TYPENAME_ALIAS } from './selection.split';

type Obj = Record<string, unknown>;
export type EntityFetcher = (
  subgraph: string,
  query: string,
  representations: Obj[],
) => Promise<{ data?: { _entities?: (Obj | null)[] } | null; errors?: unknown[] }>;

export async function completeEntities(
  model: SupergraphModel,
  subgraph: string,
  parentType: string,
  selectionSet: SelectionSetNode,
  objects: Obj[],
  fetchEntities: EntityFetcher,
  errors: unknown[],
  depth = 0,
): Promise<void> {
  if (objects.length === 0 || depth > 16) return;
  const byType = new Map<string, Obj[]>();
  for (const o of objects) {
    const t = typeof o[TYPENAME_ALIAS] === 'string' ? (o[TYPENAME_ALIAS] as string) : parentType;
    byType.set(t, [...(byType.get(t) ?? []), o]);
  }
  for (const [typeName, objs] of byType) {
    const fields = fieldsFor(model, selectionSet, typeName);
    const local = fields.filter(
      (f) => f.name.value.startsWith('__') || model.resolvesField(subgraph, typeName, f.name.value),
    );
    const missing = fields.filter((f) => !local.includes(f));

    // Fields of this subgraph: descend into their objects.
    for (const f of local) {
      if (!f.selectionSet) continue;
      const child = fieldTypeName(model.apiSchema, typeName, f.name.value);
      if (!child) continue;
      const key = f.alias?.value ?? f.name.value;
      const children = objs.flatMap((o) => flatten(o[key]));
      await completeEntities(model, subgraph, child, f.selectionSet, children, fetchEntities, errors, depth + 1);
    }

    // Fields of other subgraphs: one _entities call per owning subgraph.
    const byOwner = new Map<string, FieldNode[]>();
    for (const f of missing) {
      const owner = model
        .subgraphNames()
        .find(
          (sg) =>
            sg !== subgraph &&
            model.resolvesField(sg, typeName, f.name.value) &&
            usableKey(model, sg, typeName, objs) !== undefined,
        );
      if (!owner) {
        errors.push({
          message: `Cannot resolve ${typeName}.${f.name.value} for a subscription event`,
          extensions: { code: 'SUBSCRIPTION_ENTITY_UNRESOLVABLE' },
        });
        continue;
      }
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), f]);
    }
    for (const [owner, ownerFields] of byOwner) {
      const key = usableKey(model, owner, typeName, objs)!;
      const usable = objs.filter((o) => key.every((k) => o[keyAlias(k)] !== undefined && o[keyAlias(k)] !== null));
      if (usable.length === 0) continue;
      const representations = usable.map((o) => ({
        __typename: typeName,
        ...Object.fromEntries(key.map((k) => [k, o[keyAlias(k)]])),
      }));
      const wanted: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: ownerFields };
      const query = `query RouterSubscriptionEntities($representations: [_Any!]!) { _entities(representations: $representations) { ... on ${typeName} ${print(splitForSubgraph(model, owner, typeName, wanted))} } }`;
      const result = await fetchEntities(owner, query, representations);
      if (result.errors?.length) errors.push(...result.errors);
      const entities = result.data?._entities ?? [];
      usable.forEach((o, i) => {
        const e = entities[i];
        if (e) for (const [k, v] of Object.entries(e)) if (k !== TYPENAME_ALIAS || o[k] === undefined) o[k] = v;
      });
      await completeEntities(model, owner, typeName, wanted, usable, fetchEntities, errors, depth + 1);
    }
  }
}

/** The owner's first key whose fields the objects carry (requested under router aliases). */
function usableKey(model: SupergraphModel, owner: string, typeName: string, objs: Obj[]): string[] | undefined {
  return model
    .entityKeys(owner, typeName, { resolvable: true })
    .find((key) => objs.some((o) => key.every((k) => o[keyAlias(k)] !== undefined && o[keyAlias(k)] !== null)));
}

/** Fields that apply to a concrete type, looking through inline fragments. */
function fieldsFor(model: SupergraphModel, selectionSet: SelectionSetNode, typeName: string): FieldNode[] {
  const out: FieldNode[] = [];
  for (const sel of selectionSet.selections) {
    if (sel.kind === Kind.FIELD) out.push(sel);
    else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const cond = sel.typeCondition?.name.value;
      if (!cond || cond === typeName || implementsType(model, typeName, cond))
        out.push(...fieldsFor(model, sel.selectionSet, typeName));
    }
  }
  return out;
}

function implementsType(model: SupergraphModel, typeName: string, abstract: string): boolean {
  const t = model.apiSchema.getType(typeName);
  const a = model.apiSchema.getType(abstract);
  return Boolean(t && a && 'getInterfaces' in t && model.apiSchema.isSubType(a as never, t as never));
}

function flatten(value: unknown): Obj[] {
  if (Array.isArray(value)) return value.flatMap(flatten);
  return value && typeof value === 'object' ? [value as Obj] : [];
}
