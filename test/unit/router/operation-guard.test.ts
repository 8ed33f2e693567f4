import { getOperationAST, parse } from 'graphql';
import { composeSupergraph } from '../../../router/compose';
import { guardOperation } from '../../../router/graphql/operation-guard';
import { SupergraphModel } from '../../../router/supergraph/supergraph.model';
import { UPLOADS_SDL } from '../../support/fixtures/fake-subgraphs';

const model = SupergraphModel.parse(
  composeSupergraph([{ name: 'uploads', url: 'http://x/graphql', sdl: UPLOADS_SDL }]),
);
const limits = { maxDepth: 4, maxCost: 50, defaultListSize: 10, maxAliases: 100, maxPageSize: 1000 };
const user = { username: 'u', tenantId: 't', roles: ['user'], scopes: ['read'], isService: false };
const admin = { ...user, roles: ['admin'], scopes: ['read', 'write', 'admin'] };

function guard(query: string, auth?: typeof user) {
  const document = parse(query);
  return guardOperation(model.apiSchema, model.authRules, limits, document, getOperationAST(document)!, {}, auth);
}

describe('operation guard', () => {
  it('lets a plain query through', () => {
    expect(guard('{ publicInfo }')).toBeUndefined();
  });

  it('refuses a query deeper than the limit, fragments included', () => {
    const err = guard('query { deep { child { child { ...F } } } } fragment F on Nested { child { value } }');
    expect(err?.extensions.code).toBe('QUERY_TOO_DEEP');
    expect(err?.message).toMatch(/depth 5 exceeds the limit of 4/);
    expect(guard('{ deep { child { value } } }')).toBeUndefined();
  });

  it('refuses a query costing more than the limit', () => {
    const fields = Array.from({ length: 60 }, (_, i) => `a${i}: publicInfo`).join(' ');
    expect(guard(`{ ${fields} }`)?.extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('enforces @requiresScopes and @authenticated from the supergraph', () => {
    expect(guard('{ adminInfo }')?.extensions.code).toBe('UNAUTHENTICATED');
    expect(guard('{ adminInfo }', user)?.extensions.code).toBe('FORBIDDEN');
    expect(guard('{ adminInfo }', admin)).toBeUndefined();
    expect(guard('mutation($f: Upload!) { upload(file: $f) { size } }')?.extensions.code).toBe('UNAUTHENTICATED');
    expect(guard('mutation($f: Upload!) { upload(file: $f) { size } }', user)).toBeUndefined();
  });

  it('reuses its analysis of one parsed operation, still per caller and per variables', () => {
    const document = parse('query($n: Int) { adminInfo deep { child { value } } }');
    const op = getOperationAST(document)!;
    const run = (auth?: typeof user) =>
      guardOperation(model.apiSchema, model.authRules, limits, document, op, {}, auth)?.extensions.code;
    expect(run(admin)).toBeUndefined();
    expect(run(user)).toBe('FORBIDDEN');
    expect(run()).toBe('UNAUTHENTICATED');
  });
});
