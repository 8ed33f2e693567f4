// What the fetch wrappers (deduplication, response cache) need to know of a gateway-built
// subgraph request: whether it is a query, and who it is for.
import type { FetcherRequestInit } from '@apollo/utils.fetcher';

/** The body of a POSTed query (never a mutation), or undefined. */
export function queryBody(init: FetcherRequestInit): string | undefined {
  const body = typeof init.body === 'string' ? init.body : undefined;
  if ((init.method ?? 'GET') !== 'POST' || !body) return undefined;
  const start = body.indexOf('"query":"');
  if (start < 0) return undefined;
  const text = body.slice(start + 9, start + 40).trimStart();
  return text.startsWith('{') || text.startsWith('query') ? body : undefined;
}

/** One caller's identical request: URL, body, bearer token and tenant. */
export function callerRequestKey(url: string, init: FetcherRequestInit, body: string): string {
  const h = init.headers ?? {};
  return `${url}\n${header(h, 'authorization')}\n${header(h, 'x-tenant-id')}\n${body}`;
}

function header(headers: Record<string, string>, name: string): string {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return '';
}
