// In-flight query deduplication for subgraph calls, as Apollo's router offers it
// (traffic_shaping.deduplicate_query): identical subgraph *queries* made at the same moment for
// the same caller (same URL, body, Authorization and X-Tenant-ID) share one upstream call and its
// answer. Mutations are never shared. The shared call carries the first request's correlation id
// and trace context. Off with ROUTER_DEDUPLICATE_QUERIES=false.
import type { Fetcher, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';
import { callerRequestKey, queryBody } from './subgraph-request';

export function deduplicating(fetcher: Fetcher): Fetcher {
  const inflight = new Map<string, Promise<FetcherResponse>>();
  return (url: string, init: FetcherRequestInit = {}) => {
    const body = queryBody(init);
    if (!body) return fetcher(url, init);
    const key = callerRequestKey(url, init, body);
    const existing = inflight.get(key);
    if (existing) return existing;
    const call = fetcher(url, init).finally(() => inflight.delete(key));
    inflight.set(key, call);
    return call;
  };
}
