// A subgraph response cache driven by the subgraph's own Cache-Control, in the spirit of Apollo
// Router's entity cache: a query answer the subgraph marks `max-age=N` (Apollo Server computes
// the header from cache hints, e.g. identity's User entities) is reused for the same caller (URL,
// body, Authorization, X-Tenant-ID) for N seconds. Everything else — root fields default to
// max-age 0, answers with errors are `no-store` — goes to the subgraph every time. Bounded: the
// oldest entries go first. Off with ROUTER_RESPONSE_CACHE=false.
import type { Fetcher, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';
import { callerRequestKey, queryBody } from './subgraph-request';

export interface ResponseCacheOptions {
  maxEntries: number;
  now?: () => number;
}

/** Seconds a response may be reused, from its Cache-Control; 0 when it may not. */
export function maxAgeOf(cacheControl: string | null): number {
  if (!cacheControl || /no-store|no-cache/i.test(cacheControl)) return 0;
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl);
  return match ? Number(match[1]) : 0;
}

export function caching(fetcher: Fetcher, options: ResponseCacheOptions): Fetcher {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { response: FetcherResponse; expiresAt: number }>();
  // Not an async function: a hit answers with one promise, a miss adds one `.then`; an async
  // wrapper and its await were two more promises per query (each costs hook calls once tracing's
  // AsyncLocalStorage is on, issue 31).
  return (url: string, init: FetcherRequestInit = {}) => {
    const body = queryBody(init);
    if (!body) return fetcher(url, init);
    const key = callerRequestKey(url, init, body);
    const hit = entries.get(key);
    if (hit) {
      if (hit.expiresAt > now()) return Promise.resolve(hit.response);
      entries.delete(key);
    }
    return fetcher(url, init).then((response) => {
      const maxAge = response.status === 200 ? maxAgeOf(response.headers.get('cache-control')) : 0;
      if (maxAge > 0) {
        // The response is read whole by the fetcher below, so it can be handed out again.
        entries.set(key, { response, expiresAt: now() + maxAge * 1000 });
        if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
      }
      return response;
    });
  };
}
