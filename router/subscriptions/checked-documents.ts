// Parsing and validating a subscription's document is most of what a subscribe costs the router
// (profile of 10,000 subscribes, issue 35): clients of one frontend send the same few documents,
// so the outcome is kept per schema and document text. The same DocumentNode then serves every
// subscribe of that text, which also lets identical subscriptions share one forwarded run
// (shared.subscriptions.ts). Bounded: the oldest text is forgotten first.
import { GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';

/** Document texts remembered per schema. */
const MAX_DOCUMENTS = 500;

export type Checked = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: GraphQLError[] };

const bySchema = new WeakMap<GraphQLSchema, Map<string, Checked>>();

export function checkedDocument(schema: GraphQLSchema, query: string): Checked {
  let known = bySchema.get(schema);
  if (!known) bySchema.set(schema, (known = new Map()));
  let checked = known.get(query);
  if (!checked) {
    checked = check(schema, query);
    if (known.size >= MAX_DOCUMENTS) known.delete(known.keys().next().value!);
    known.set(query, checked);
  }
  return checked;
}

function check(schema: GraphQLSchema, query: string): Checked {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    return { errors: [new GraphQLError((err as Error).message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })] };
  }
  const invalid = validate(schema, document);
  if (invalid.length)
    return {
      errors: invalid.map(
        (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      ),
    };
  return { document };
}
