// The Cache-Control of the router's GraphQL answers, as Apollo Server's cache-control plugin wrote
// it for a gateway, without the plugin (issue 31: the plugin was the last request listener Apollo
// Server awaited at each of its seven stages per request, about 15 promises a query, each costing
// hook calls once tracing's AsyncLocalStorage is on). For a gateway the plugin's policy is the
// gateway's: each subgraph answer restricts it by its own Cache-Control (RemoteGraphQLDataSource;
// no header = max-age 0), so an answer is cacheable only when every subgraph call said so and
// nothing failed (`max-age=N, private|public`); anything else is `no-store`.
import type { CachePolicy } from '@apollo/cache-control-types';

export const UNCACHEABLE = 'no-store';

/** The header for an executed operation's answer, or undefined when it is not cacheable (then `no-store`). */
export function cacheableHeader(
  policy: CachePolicy | undefined,
  errors: readonly unknown[] | undefined,
): string | undefined {
  if (errors) return undefined;
  const cacheable = policy?.policyIfCacheable();
  return cacheable ? `max-age=${cacheable.maxAge}, ${cacheable.scope.toLowerCase()}` : undefined;
}
