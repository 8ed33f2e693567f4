// The database of a process whose services declare `usesDatabase: false` (the gateway alone): it
// opens nothing, so a lone gateway needs no DATABASE_URL and two gateways never contend for one
// embedded PGlite folder. Any use is a programming error and says so.
import type { Database } from './database';

function unavailable(): never {
  throw new Error('this process runs only services that declare usesDatabase: false, so it opened no database');
}

export function noDatabase(): Database {
  const refuse = new Proxy({}, { get: () => unavailable });
  return {
    kind: 'none',
    prisma: refuse as Database['prisma'],
    sql: { query: async () => unavailable(), exec: async () => unavailable(), transaction: async () => unavailable() },
    description: 'no database',
    async close() {},
  };
}
