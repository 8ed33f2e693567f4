// The REST door's names for domain input errors: located by the route (query for GET, body
// otherwise, or `inputLocation`), snake_cased, or renamed by the route's `inputNames`.
import type { FastifyRequest } from 'fastify';
import { restIssues } from '../../../platform/http/error-handler';

const request = (method: string, config: Record<string, unknown> = {}) =>
  ({ method, routeOptions: { config } }) as unknown as FastifyRequest;
const issue = (...loc: (string | number)[]) => ({ loc, msg: 'Invalid cursor', type: 'value_error' });

describe('restIssues', () => {
  it('locates domain fields by method and snake_cases them', () => {
    expect(restIssues([issue('eventType')], request('POST'))).toEqual([issue('body', 'event_type')]);
    expect(restIssues([issue('tenantId')], request('GET'))).toEqual([issue('query', 'tenant_id')]);
    expect(restIssues([issue('roleName')], request('POST', { inputLocation: 'query' }))).toEqual([
      issue('query', 'role_name'),
    ]);
  });

  it('uses the wire name a route gives a domain field (the top-level name only)', () => {
    const route = request('GET', { inputNames: { after: 'cursor', first: 'limit' } });
    expect(restIssues([issue('after'), issue('first'), issue('tenantId')], route)).toEqual([
      issue('query', 'cursor'),
      issue('query', 'limit'),
      issue('query', 'tenant_id'),
    ]);
    expect(restIssues([issue('filter', 'after')], route)).toEqual([issue('query', 'filter', 'after')]);
    expect(restIssues([issue('toString')], route)).toEqual([issue('query', 'to_string')]);
  });

  it('leaves issues the route schema already located', () => {
    const route = request('GET', { inputNames: { after: 'cursor' } });
    expect(restIssues([issue('query', 'after')], route)).toEqual([issue('query', 'after')]);
  });
});
