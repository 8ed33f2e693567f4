// The router's gateway as Apollo Server sees it (router/graphql/guarded-gateway.ts): the operation
// guard in front of the executor (no request plugin), and the answer's Cache-Control from the
// gateway's cache policy (router/graphql/cache-control.ts), both without Apollo Server's plugins.
import type { ApolloGateway } from '@apollo/gateway';
import { getOperationAST, parse } from 'graphql';
import { composeSupergraph } from '../../../router/compose';
import { guardedGateway } from '../../../router/graphql/guarded-gateway';
import { cacheableHeader } from '../../../router/graphql/cache-control';
import { SupergraphModel } from '../../../router/supergraph/supergraph.model';
import { UPLOADS_SDL } from '../../support/fixtures/fake-subgraphs';

const model = SupergraphModel.parse(
  composeSupergraph([{ name: 'uploads', url: 'http://x/graphql', sdl: UPLOADS_SDL }]),
);
const limits = { maxDepth: 4, maxCost: 50, defaultListSize: 10, maxAliases: 100, maxPageSize: 1000 };
const user = { username: 'u', tenantId: 't', roles: ['user'], scopes: ['read'], isService: false };

function policy(maxAge: number | undefined, scope?: 'PUBLIC' | 'PRIVATE') {
  return {
    maxAge,
    scope,
    replace: () => undefined,
    restrict: () => undefined,
    policyIfCacheable: () => (maxAge ? { maxAge, scope: scope ?? 'PUBLIC' } : null),
  };
}

/** A gateway whose executor answers `result` and counts its calls. */
function fakeGateway(result: { data?: unknown; errors?: unknown[] }) {
  const calls: unknown[] = [];
  const gateway = {
    load: async () => ({
      schema: model.apiSchema,
      executor: async (ctx: unknown) => {
        calls.push(ctx);
        return result;
      },
    }),
    onSchemaLoadOrUpdate: () => () => undefined,
    stop: async () => undefined,
  } as unknown as ApolloGateway;
  return { gateway, calls };
}

async function run(query: string, result: { data?: unknown; errors?: unknown[] }, cachePolicy = policy(undefined)) {
  const { gateway, calls } = fakeGateway(result);
  const loaded = await guardedGateway(gateway, { authRules: () => model.authRules, limits }).load();
  const document = parse(query);
  const headers = new Map<string, string>();
  const ctx = {
    document,
    operation: getOperationAST(document)!,
    request: { variables: {} },
    schema: model.apiSchema,
    context: { correlationId: 'c', auth: user },
    overallCachePolicy: cachePolicy,
    response: { http: { headers: { set: (k: string, v: string) => headers.set(k, v) } } },
  };
  const answer = await loaded.executor!(ctx as never).then(
    (r) => ({ result: r, error: undefined }),
    (error: { extensions?: { code?: string } }) => ({ result: undefined, error }),
  );
  return { ...answer, calls: calls.length, cacheControl: headers.get('cache-control') };
}

describe('guarded gateway', () => {
  it('refuses an operation the guard denies before the gateway plans or calls anything', async () => {
    const denied = await run('{ adminInfo }', { data: { adminInfo: 'x' } });
    expect(denied.error?.extensions?.code).toBe('FORBIDDEN');
    expect(denied.calls).toBe(0);
    const deep = await run('{ deep { child { child { child { child { value } } } } } }', { data: {} });
    expect(deep.error?.extensions?.code).toBe('QUERY_TOO_DEEP');
    expect(deep.calls).toBe(0);
  });

  it('hands an allowed operation to the gateway and its answer back', async () => {
    const allowed = await run('{ publicInfo }', { data: { publicInfo: 'x' } });
    expect(allowed.error).toBeUndefined();
    expect(allowed.calls).toBe(1);
    expect(allowed.result).toEqual({ data: { publicInfo: 'x' } });
  });

  it('marks an answer cacheable only when every subgraph answer allowed it and nothing failed', async () => {
    expect((await run('{ publicInfo }', { data: {} }, policy(5, 'PRIVATE'))).cacheControl).toBe('max-age=5, private');
    expect((await run('{ publicInfo }', { data: {} }, policy(30))).cacheControl).toBe('max-age=30, public');
    expect((await run('{ publicInfo }', { data: {} }, policy(0))).cacheControl).toBeUndefined();
    expect((await run('{ publicInfo }', { errors: [{}] }, policy(5))).cacheControl).toBeUndefined();
    expect(cacheableHeader(undefined, undefined)).toBeUndefined();
  });
});
