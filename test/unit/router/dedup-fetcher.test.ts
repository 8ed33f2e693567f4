import type { Fetcher, FetcherResponse } from '@apollo/utils.fetcher';
import { deduplicating } from '../../../router/http/dedup.fetcher';

function countingFetcher(): { fetcher: Fetcher; calls: number; release(): void } {
  const state = { calls: 0, pending: [] as (() => void)[] };
  const fetcher: Fetcher = () => {
    state.calls++;
    return new Promise<FetcherResponse>((resolve) =>
      state.pending.push(() => resolve({ status: 200 } as FetcherResponse)),
    );
  };
  return {
    fetcher,
    get calls() {
      return state.calls;
    },
    release: () => state.pending.splice(0).forEach((r) => r()),
  };
}

const post = (query: string, authorization = 'Bearer a', tenant = 't1') => ({
  method: 'POST',
  headers: { authorization, 'x-tenant-id': tenant, 'x-correlation-id': String(Math.random()) },
  body: JSON.stringify({ query }),
});

describe('deduplicating fetcher', () => {
  it('shares identical in-flight queries of one caller, and nothing else', async () => {
    const inner = countingFetcher();
    const fetch = deduplicating(inner.fetcher);
    const same = [fetch('http://s/graphql', post('{ a }')), fetch('http://s/graphql', post('{ a }'))];
    expect(inner.calls).toBe(1);
    fetch('http://s/graphql', post('{ a }', 'Bearer other')); // another caller
    fetch('http://s/graphql', post('{ a }', 'Bearer a', 't2')); // another tenant
    fetch('http://s/graphql', post('mutation { m }'));
    fetch('http://s/graphql', post('mutation { m }')); // mutations never shared
    expect(inner.calls).toBe(5);
    inner.release();
    const [r1, r2] = await Promise.all(same);
    expect(r1).toBe(r2);
    fetch('http://s/graphql', post('{ a }')); // finished calls are not reused
    expect(inner.calls).toBe(6);
    inner.release();
  });
});
