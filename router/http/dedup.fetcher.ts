// In-flight query deduplication for subgraph calls, as Apollo's router offers it
// (traffic_shaping.deduplicate_query): identical subgraph *queries* made at the same moment for
// the same caller (same URL, body, Authorization and X-Tenant-ID) share one upstream call and its
// answer. Mutations are never shared. The shared call carries the first request's correlation id
// and trace context. Off with ROUTER_DEDUPLICATE_QUERIES=false.
import type { Fetcher, FetcherRequestInit, FetcherResponse } from '@apollo/utils.fetcher';

export function deduplicating(fetcher: Fetcher): Fetcher {
  const inflight = new Map<string, Promise<FetcherResponse>>();
  return (url: string, init: FetcherRequestInit = {}) => {
    const body = typeof init.body === 'string' ? init.body : undefined;
    if ((init.method ?? 'GET') !== 'POST' || !body || !isQuery(body)) return fetcher(url, init);
    const h = init.headers ?? {};
    const key = `${url}\n${header(h, 'authorization')}\n${header(h, 'x-tenant-id')}\n${body}`;
    const existing = inflight.get(key);
    if (existing) return existing;
    const call = fetcher(url, init).finally(() => inflight.delete(key));
    inflight.set(key, call);
    return call;
  };
}

/** The operation a gateway-built subgraph request carries is a query (not a mutation). */
function isQuery(body: string): boolean {
  const start = body.indexOf('"query":"');
  if (start < 0) return false;
  const text = body.slice(start + 9, start + 40).trimStart();
  return text.startsWith('{') || text.startsWith('query');
}

function header(headers: Record<string, string>, name: string): string {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return '';
}
