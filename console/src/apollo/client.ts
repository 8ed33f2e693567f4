// One Apollo Client for the console: HTTP for queries and mutations, graphql-ws on the same
// origin for subscriptions, both carrying the in-memory access token and, for a platform
// operator, the tenant they picked (x-tenant-id, which the API audits as operator action).
import { ApolloClient, ApolloLink, HttpLink } from '@apollo/client';
import { SetContextLink } from '@apollo/client/link/context';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import { accessToken } from '../session/session';
import { createCache } from './cache';

let tenant: string | undefined;
/** The tenant a platform operator acts in (undefined: their own). */
export const setActingTenant = (id: string | undefined) => (tenant = id);

function credentials(): Record<string, string> {
  const token = accessToken();
  return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(tenant ? { 'x-tenant-id': tenant } : {}) };
}

export function createConsoleClient(): { client: ApolloClient; close(): void } {
  const http = ApolloLink.from([
    new SetContextLink((prev) => ({ headers: { ...prev.headers, ...credentials() } })),
    new HttpLink({ uri: '/graphql' }),
  ]);
  const ws = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: () => credentials(),
    lazy: true,
    retryAttempts: 5,
  });
  const link = ApolloLink.split(
    ({ query }) => {
      const def = getMainDefinition(query);
      return def.kind === 'OperationDefinition' && def.operation === 'subscription';
    },
    new GraphQLWsLink(ws),
    http,
  );
  const client = new ApolloClient({
    link,
    cache: createCache(),
    defaultOptions: { watchQuery: { fetchPolicy: 'cache-and-network' } },
  });
  return { client, close: () => void ws.dispose() };
}
