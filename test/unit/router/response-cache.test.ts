// The router's subgraph response cache: only what the subgraph's Cache-Control allows, only for
// the same caller, only queries, and never past max-age.
import type { Fetcher, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';
import { caching, maxAgeOf } from '../../../router/http/response-cache.fetcher';

function fakeSubgraph(cacheControl: string, status = 200) {
  const calls: string[] = [];
  const fetcher: Fetcher = async (_url, init) => {
    calls.push(String(init?.body));
    const body = `{"data":{"n":${calls.length}}}`;
    return {
      status,
      ok: status === 200,
      url: 'u',
      redirected: false,
      statusText: '',
      bodyUsed: false,
      headers: new Headers({ 'cache-control': cacheControl }),
      text: async () => body,
      json: async () => JSON.parse(body),
      arrayBuffer: async () => new ArrayBuffer(0),
      clone() {
        return this;
      },
    } as FetcherResponse;
  };
  return { fetcher, calls };
}

const entities =
  '{"query":"query($representations:[_Any!]!){_entities(representations:$representations){...on User{email}}}","variables":{"representations":[{"__typename":"User","username":"a"}]}}';
const init = (body: string, token = 't1'): FetcherRequestInit => ({
  method: 'POST',
  body,
  headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'default' },
});

describe('subgraph response cache', () => {
  it('reuses an answer for the same caller within max-age, then asks again', async () => {
    let now = 0;
    const sub = fakeSubgraph('max-age=5, private');
    const fetch = caching(sub.fetcher, { maxEntries: 10, now: () => now });
    expect(await (await fetch('http://identity/graphql', init(entities))).text()).toBe('{"data":{"n":1}}');
    now = 4_999;
    expect(await (await fetch('http://identity/graphql', init(entities))).text()).toBe('{"data":{"n":1}}');
    now = 5_000;
    expect(await (await fetch('http://identity/graphql', init(entities))).text()).toBe('{"data":{"n":2}}');
    expect(sub.calls).toHaveLength(2);
  });

  it('never shares an answer between callers or tenants', async () => {
    const sub = fakeSubgraph('max-age=5, private');
    const fetch = caching(sub.fetcher, { maxEntries: 10 });
    await fetch('http://identity/graphql', init(entities, 't1'));
    await fetch('http://identity/graphql', init(entities, 't2'));
    await fetch('http://identity/graphql', {
      ...init(entities, 't1'),
      headers: { authorization: 'Bearer t1', 'x-tenant-id': 'other' },
    });
    expect(sub.calls).toHaveLength(3);
  });

  it('does not cache what the subgraph does not allow, errors, or mutations', async () => {
    for (const [header, status] of [
      ['no-store', 200],
      ['max-age=0, private', 200],
      ['max-age=5, private', 500],
    ] as const) {
      const sub = fakeSubgraph(header, status);
      const fetch = caching(sub.fetcher, { maxEntries: 10 });
      await fetch('http://identity/graphql', init(entities));
      await fetch('http://identity/graphql', init(entities));
      expect(sub.calls).toHaveLength(2);
    }
    const sub = fakeSubgraph('max-age=5, private');
    const fetch = caching(sub.fetcher, { maxEntries: 10 });
    const mutation = '{"query":"mutation{createRole(name:\\"x\\"){name}}"}';
    await fetch('http://identity/graphql', init(mutation));
    await fetch('http://identity/graphql', init(mutation));
    expect(sub.calls).toHaveLength(2);
  });

  it('stays bounded, dropping the oldest answers first', async () => {
    const sub = fakeSubgraph('max-age=60, private');
    const fetch = caching(sub.fetcher, { maxEntries: 2 });
    for (const token of ['a', 'b', 'c']) await fetch('http://identity/graphql', init(entities, token));
    await fetch('http://identity/graphql', init(entities, 'c'));
    expect(sub.calls).toHaveLength(3);
    await fetch('http://identity/graphql', init(entities, 'a'));
    expect(sub.calls).toHaveLength(4);
  });

  it('reads max-age from Cache-Control', () => {
    expect(maxAgeOf('max-age=5, private')).toBe(5);
    expect(maxAgeOf('public, max-age=30')).toBe(30);
    expect(maxAgeOf('no-store')).toBe(0);
    expect(maxAgeOf(null)).toBe(0);
  });
});
