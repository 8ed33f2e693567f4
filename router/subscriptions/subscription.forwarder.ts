// Runs one client subscription: the part the owning subgraph resolves goes upstream over
// graphql-ws (with the caller's token and tenant), and every event is completed with the fields
// other subgraphs contribute, then shaped to exactly the client's selection by executing the
// client's document over the merged data.
import {
  execute,
  GraphQLError,
  Kind,
  print,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import type { Client } from 'graphql-ws';
import type { SupergraphModel } from '../supergraph/supergraph.model';
import { completeEntities, type EntityFetcher } from './entity.completion';
import { inlineFragments, splitForSubgraph, TYPENAME_ALIAS } from './selection.split';

export interface SubscriptionRequest {
  model: SupergraphModel;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown>;
  upstream(subgraph: string): Client;
  fetchEntities: EntityFetcher;
  /** Aborted when the client completes the subscription or its socket ends: the upstream
   * subscription is ended at once, not after the next event. */
  signal: AbortSignal;
}

export async function* forwardSubscription(req: SubscriptionRequest): AsyncGenerator<ExecutionResult> {
  const { model, operation } = req;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of req.document.definitions)
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  const selection = inlineFragments(operation.selectionSet, fragments);
  const rootFields = selection.selections.filter((s) => s.kind === Kind.FIELD && !s.name.value.startsWith('__'));
  const rootName = rootFields[0]?.kind === Kind.FIELD ? rootFields[0].name.value : undefined;
  const owner = rootName ? model.ownerOf('Subscription', rootName) : undefined;
  if (!owner) {
    yield {
      errors: [new GraphQLError('No subgraph serves this subscription', { extensions: { code: 'BAD_REQUEST' } })],
    };
    return;
  }

  const upstreamSelection = splitForSubgraph(model, owner, 'Subscription', selection);
  const used = usedVariables(upstreamSelection);
  const upstreamOperation: OperationDefinitionNode = {
    ...operation,
    variableDefinitions: operation.variableDefinitions?.filter((v) => used.has(v.variable.name.value)),
    selectionSet: upstreamSelection,
  };
  const query = print({ kind: Kind.DOCUMENT, definitions: [upstreamOperation] });
  const variables = Object.fromEntries(Object.entries(req.variables).filter(([k]) => used.has(k)));

  if (req.signal.aborted) return;
  const events = req.upstream(owner).iterate({ query, variables, operationName: operation.name?.value });
  // graphql-ws's iterator ends a pending next() when returned (it sends `complete` upstream).
  const stop = () => void events.return?.(undefined);
  req.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const event of events) {
      if (req.signal.aborted) return;
      const data = event.data as Record<string, unknown> | null | undefined;
      const errors: unknown[] = [...(event.errors ?? [])];
      if (data) await completeEntities(model, owner, 'Subscription', selection, [data], req.fetchEntities, errors);
      const shaped = data
        ? await execute({
            schema: model.apiSchema,
            document: req.document,
            operationName: operation.name?.value,
            variableValues: req.variables,
            rootValue: data,
            fieldResolver: (source, _args, _ctx, info) =>
              (source as Record<string, unknown> | null)?.[info.path.key as string],
            typeResolver: (value) => (value as Record<string, unknown>)[TYPENAME_ALIAS] as string,
          })
        : { data: null };
      yield errors.length ? { ...shaped, errors: [...(shaped.errors ?? []), ...(errors as GraphQLError[])] } : shaped;
    }
  } catch (err) {
    // graphql-ws rejects with the subgraph's GraphQL errors (an array) or the socket's close event.
    if (!req.signal.aborted) yield { errors: upstreamErrors(owner, err) };
  } finally {
    req.signal.removeEventListener('abort', stop);
    await events.return?.(undefined);
  }
}

function usedVariables(node: import('graphql').ASTNode): Set<string> {
  const names = new Set<string>();
  visit(node, {
    Variable: (v) => {
      names.add(v.name.value);
    },
  });
  return names;
}

function upstreamErrors(subgraph: string, err: unknown): GraphQLError[] {
  if (Array.isArray(err)) {
    return err.map(
      (e: { message?: string; extensions?: Record<string, unknown> }) =>
        new GraphQLError(e.message ?? 'Subgraph error', { extensions: { ...e.extensions, serviceName: subgraph } }),
    );
  }
  // The close reason is the subgraph's text (an error message, in development): only the code is told.
  const close = err as { code?: number } | undefined;
  const detail = close && typeof close.code === 'number' ? `closed (${close.code})` : 'failed';
  return [
    new GraphQLError(`Subscription to subgraph '${subgraph}' ${detail}`, {
      extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: subgraph },
    }),
  ];
}
