// What a client learns when the router could not get an answer from a subgraph: a neutral
// message naming the subgraph, and a code. ApolloGateway's own errors for these cases carry the
// subgraph's URL and its raw response body (`extensions.response`) or the socket error's
// `connect ECONNREFUSED host:port`; none of that leaves the router (it is logged instead).
import { GraphQLError } from 'graphql';
import { failureFor } from '../edge/proxy/upstream.errors';

/** A failed subgraph call as the client sees it. `status` is the subgraph's HTTP status, if it answered. */
export function subgraphFailure(subgraph: string | undefined, error: unknown, status?: number): GraphQLError {
  const name = subgraph ? `Subgraph '${subgraph}'` : 'A subgraph';
  const make = (message: string, code: string) =>
    new GraphQLError(message, { extensions: { code, ...(subgraph ? { serviceName: subgraph } : {}) } });
  if (status === 401) return make(`${name} did not accept the caller's credentials`, 'UNAUTHENTICATED');
  if (status === 403) return make(`${name} refused the request`, 'FORBIDDEN');
  if (status !== undefined) return make(`${name} gave an invalid response`, 'BAD_GATEWAY');
  // The REST proxy's classification of socket errors (connection refused, timeouts, ...).
  const failure = failureFor(subgraph ?? 'subgraph', '', error, 0);
  if (failure.status === 503) return make(`${name} is unavailable`, 'SERVICE_UNAVAILABLE');
  if (failure.status === 504) return make(`${name} did not answer in time`, 'GATEWAY_TIMEOUT');
  return make(`${name} gave an invalid response`, 'BAD_GATEWAY');
}
