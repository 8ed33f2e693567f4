// The cost model on the real supergraph (supergraph.graphql): page sizes given as literals,
// variables or schema defaults, Relay connections sizing their edges/nodes, nested lists
// multiplying, every field and alias counted (`__typename` too), the page-size and alias caps.
import fs from 'node:fs';
import path from 'node:path';
import { getOperationAST, Kind, parse, validate, type FragmentDefinitionNode } from 'graphql';
import { guardOperation, type GuardLimits } from '../../../router/graphql/operation-guard';
import { measureOperation } from '../../../router/graphql/operation-limits';
import { SupergraphModel } from '../../../router/supergraph/supergraph.model';
import { PROJECT_ROOT } from '../../../platform/project-root';

const model = SupergraphModel.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'supergraph.graphql'), 'utf8'));
/** The defaults of router/gateway.config.ts. */
const limits: GuardLimits = { maxDepth: 12, maxCost: 5_000, defaultListSize: 10, maxAliases: 15, maxPageSize: 1_000 };
const admin = {
  username: 'a',
  tenantId: 'default',
  roles: ['admin'],
  scopes: ['read', 'write', 'admin'],
  isService: false,
};

function guard(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  // Every query here must be one the router would accept up to the guard.
  expect(validate(model.apiSchema, document)).toEqual([]);
  return guardOperation(
    model.apiSchema,
    model.authRules,
    limits,
    document,
    getOperationAST(document)!,
    variables,
    admin,
  );
}

function measure(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return measureOperation(model.apiSchema, getOperationAST(document)!, fragments, variables, { defaultListSize: 10 });
}

const HUGE = `{ ledgerEvents(first: 1000) { edges { node { id eventType user { username auditTrail(first: 1000) { edges { node { id eventType eventData } } } } } } } }`;

describe('operation cost on the real supergraph', () => {
  it('refuses the 998k-node query (a connection of 1000 whose users each page 1000 events) with QUERY_TOO_COMPLEX and its cost', () => {
    const err = guard(HUGE);
    expect(err?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    // edges of 1000 × (node, id, eventType, user, username, auditTrail, edges of 1000 × 4): four million fields.
    expect(err?.extensions.cost).toBe(4_007_002);
    expect(err?.extensions.maxCost).toBe(5_000);
  });

  it('refuses the same query with its page sizes given as variables, or as variable defaults', () => {
    const q =
      'query($outer: Int, $inner: Int) { ledgerEvents(first: $outer) { nodes { user { auditTrail(first: $inner) { nodes { id } } } } } }';
    expect(guard(q, { outer: 1000, inner: 1000 })?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(
      guard(
        'query($n: Int = 1000) { ledgerEvents(first: $n) { nodes { user { auditTrail(first: $n) { nodes { id } } } } } }',
      )?.extensions.code,
    ).toBe('QUERY_TOO_COMPLEX');
    // The same document with small pages passes: the variables decide, per request.
    expect(guard(q, { outer: 10, inner: 10 })).toBeUndefined();
  });

  it('refuses three aliases of a page that passes alone', () => {
    const page = 'ledgerEvents(first: 1000) { nodes { id eventType } }';
    expect(guard(`{ ${page} }`)).toBeUndefined();
    const err = guard(`{ a: ${page} b: ${page} c: ${page} }`);
    expect(err?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(err?.extensions.cost).toBe(3 * 2_002);
  });

  it('counts __typename and its aliases like any field', () => {
    expect(measure('{ ledgerEvents(first: 1000) { nodes { __typename } } }').cost).toBe(1_002);
    const typenames = ['a', 'b', 'c', 'd', 'e', 'f'].map((a) => `${a}: __typename`).join(' ');
    const err = guard(`{ ledgerEvents(first: 1000) { nodes { ${typenames} } } }`);
    expect(err?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(err?.extensions.cost).toBe(6_002);
  });

  it("sizes a connection's edges and nodes from its own first, and multiplies nested lists", () => {
    expect(measure('{ ledgerEvents(first: 3) { edges { cursor node { id } } } }').cost).toBe(1 + 1 + 3 * (1 + 1 + 1));
    expect(
      measure('{ ledgerEvents(first: 3) { nodes { user { auditTrail(first: 2) { nodes { id } } } } } }').cost,
    ).toBe(1 + 1 + 3 * (1 + 1 + 1 + 2 * 1));
    // No first: the schema's default page (ledgerEvents: 50, auditTrail: 20), not a guess.
    expect(measure('{ ledgerEvents { nodes { id } } }').cost).toBe(1 + 1 + 50);
    expect(measure('query($n: Int) { ledgerEvents(first: $n) { nodes { id } } }', {}).cost).toBe(1 + 1 + 50);
    // A list with no size argument and no connection above it counts as the default list size.
    expect(measure('{ roles { name scopes } }').cost).toBe(1 + 10 * 2);
  });

  it('refuses a page larger than the cap before execution with BAD_USER_INPUT, literal or variable', () => {
    const literal = guard('{ ledgerEvents(first: 5000) { nodes { id } } }');
    expect(literal?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'Query.ledgerEvents',
      argument: 'first',
      pageSize: 5000,
      maxPageSize: 1000,
    });
    const variable = guard(
      'query($n: Int) { ledgerEvents { nodes { user { auditTrail(first: $n) { nodes { id } } } } } }',
      { n: 1_000_000 },
    );
    expect(variable?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'User.auditTrail',
      pageSize: 1_000_000,
    });
  });

  it('caps the number of aliases', () => {
    const many = Array.from({ length: 16 }, (_, i) => `a${i}: me { username }`).join(' ');
    const err = guard(`{ ${many} }`);
    expect(err?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', aliases: 16, maxAliases: 15 });
    expect(guard(`{ ${Array.from({ length: 15 }, (_, i) => `a${i}: me { username }`).join(' ')} }`)).toBeUndefined();
  });

  it('lets ordinary queries through', () => {
    expect(guard('{ me { username tenantId roles scopes } }')).toBeUndefined();
    expect(guard('{ ledgerEvents { nodes { eventType user { username isActive roles } } } }')).toBeUndefined();
    expect(
      guard(
        '{ ledgerEvents(first: 100) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id eventType createdAt user { username } } } } }',
      ),
    ).toBeUndefined();
    expect(
      guard(
        'query($after: String) { users(first: 20, after: $after) { nodes { username roles } pageInfo { hasNextPage endCursor } } }',
      ),
    ).toBeUndefined();
  });

  it('measures a fragment bomb exactly and refuses it', () => {
    // Each level spreads the next twice (in two inline fragments, so the executor would not
    // merge them): 2^24 aliased fields once expanded. The walker measures each fragment once,
    // so this stays cheap however many levels there are.
    const levels = 24;
    const fragments = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on Query { ... on Query { ...F${i + 1} } ... on Query { ...F${i + 1} } }`,
    ).join('\n');
    const m = measure(`query { ...F0 }\n${fragments}\nfragment F${levels} on Query { t: __typename }`);
    expect(m.aliases).toBe(2 ** levels);
    expect(m.cost).toBe(2 ** levels);
    expect(
      guard(`query { ...F0 }\n${fragments}\nfragment F${levels} on Query { t: __typename }`)?.extensions.code,
    ).toBe('QUERY_TOO_COMPLEX');
  });
});
