// The console's cache. Apollo normalises by `id` unless told otherwise; a type whose federation
// @key has more fields (supergraph.graphql: RulePack "id version", PackEntry "packId version",
// Schema "name version") must say so, or every version of a pack would share one cache entry and
// the last one read would show for all.
import { InMemoryCache } from '@apollo/client';

export function createCache(): InMemoryCache {
  return new InMemoryCache({
    typePolicies: {
      RulePack: { keyFields: ['id', 'version'] },
      PackEntry: { keyFields: ['packId', 'version'] },
      Schema: { keyFields: ['name', 'version'] },
    },
  });
}
