// The subgraphs' error formatter through a real Apollo Server: domain errors and the client's own
// mistakes (parse, validation, variables) keep their messages; anything else — Prisma's call text
// with file paths and error codes, GraphQLErrors with database codes, graphql-js's own failures —
// leaves as 'Internal server error' / INTERNAL_SERVER_ERROR and nothing more.
import { ApolloServer } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { InputError, NotFoundError } from '../../../platform/errors/domain-errors';
import { formatGraphQLError } from '../../../platform/graphql/errors';

class PrismaClientKnownRequestError extends Error {
  override name = 'PrismaClientKnownRequestError';
  readonly code = 'P2002';
  readonly meta = { modelName: 'LedgerEvent', target: ['tenant_id', 'seq'] };
}

const typeDefs = `type Query {
  append: String
  dbCode: String
  nonNull: String!
  notFound: String
  input: String
  dbDown: String
  echo(n: Int!): Int
}`;

const resolvers = {
  Query: {
    append: () => {
      throw new PrismaClientKnownRequestError(
        '\nInvalid `prisma.ledgerEvent.create()` invocation in\n/work/main/subgraphs/ledger/ledger.store.ts:212:31\n\nUnique constraint failed on the fields: (`tenant_id`,`seq`)',
      );
    },
    dbCode: () => {
      throw new GraphQLError('relation "ledger_events" does not exist', {
        extensions: { code: '42P01', table: 'ledger_events' },
      });
    },
    nonNull: () => null,
    notFound: () => {
      throw new NotFoundError('User not found');
    },
    input: () => {
      throw InputError.of(['first'], 'Input should be between 1 and 100');
    },
    dbDown: () => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.3.7:5432'), { code: 'ECONNREFUSED' });
    },
    echo: (_: unknown, args: { n: number }) => args.n,
  },
};

async function run(query: string, variables?: Record<string, unknown>, exposeDetails = false) {
  const server = new ApolloServer({
    typeDefs,
    resolvers,
    includeStacktraceInErrorResponses: false,
    formatError: (f, e) => formatGraphQLError(f, e, { exposeDetails }),
  });
  await server.start();
  try {
    const res = await server.executeOperation({ query, variables });
    if (res.body.kind !== 'single') throw new Error('unexpected incremental result');
    return res.body.singleResult;
  } finally {
    await server.stop();
  }
}

describe('subgraph error formatter', () => {
  it.each([
    ['a Prisma error (call text, file path, P2002)', '{ append }'],
    ['a GraphQLError with a database code', '{ dbCode }'],
    ['a null for a non-null field (graphql-js)', '{ nonNull }'],
  ])('reduces %s to Internal server error and nothing else', async (_label, query) => {
    const result = await run(query);
    expect(result.errors).toHaveLength(1);
    const { message, extensions } = result.errors![0]!;
    expect(message).toBe('Internal server error');
    expect(extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    const text = JSON.stringify(result);
    for (const leak of ['prisma', '.ts:', 'P2002', '42P01', 'ledger_events', 'tenant_id', 'non-nullable', 'stacktrace'])
      expect(text).not.toContain(leak);
  });

  it("keeps domain errors: message and code (and an input error's issues)", async () => {
    expect((await run('{ notFound }')).errors?.[0]).toMatchObject({
      message: 'User not found',
      extensions: { code: 'NOT_FOUND' },
    });
    const input = (await run('{ input }')).errors?.[0];
    expect(input?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'first',
      issues: [{ loc: ['first'], msg: 'Input should be between 1 and 100', type: 'value_error' }],
    });
  });

  it('reports a lost database as SERVICE_UNAVAILABLE without its address', async () => {
    const result = await run('{ dbDown }');
    expect(result.errors?.[0]).toMatchObject({
      message: 'Database unavailable, retry shortly',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    });
    expect(JSON.stringify(result)).not.toContain('10.0.3.7');
  });

  it("keeps the messages of the client's own mistakes: parse, validation, variables", async () => {
    expect((await run('{ append ')).errors?.[0]).toMatchObject({
      message: expect.stringMatching(/Syntax Error/),
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
    expect((await run('{ nope }')).errors?.[0]).toMatchObject({
      message: 'Cannot query field "nope" on type "Query".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect((await run('query($n: Int!) { echo(n: $n) }', { n: 'x' })).errors?.[0]).toMatchObject({
      message: expect.stringMatching(/\$n.*Int/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('adds the original message as extensions.detail only when asked to (development)', async () => {
    const result = await run('{ append }', undefined, true);
    expect(result.errors?.[0]?.message).toBe('Internal server error');
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      detail: expect.stringMatching(/Unique constraint failed/),
    });
  });
});
