// Issue 24: an `_entities` call for 100 references of one type costs a few statements, not 100.
// Every subgraph in the registry with a resolvable @key is called straight at its /graphql with
// 100 references per key, and the statements its database sees (Prisma operations and raw SQL,
// counted by a wrapper around the test database) must stay under a small constant. A new
// service is checked by being in the registry; a known exception is listed with its reason.
import { randomUUID } from 'node:crypto';
import { SERVICES } from '../../../launcher/registry';
import { AccessTokens } from '../../../platform/auth/jwt';
import type { PrismaClient } from '../../../platform/db/database';
import { readSubgraphSchema } from '../../../platform/graphql/subgraph-schema';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

jest.setTimeout(180_000);

const REFERENCES = 100;
/** Statements allowed per `_entities` call of one type: a batch may need a second read (e.g. OCR reviews). */
const MAX_STATEMENTS = 4;
/** Subgraphs not batched yet, each with its reason (they are skipped, and listed, not silently left out). */
const KNOWN_EXCEPTIONS: Record<string, string> = {};

interface EntityKey {
  service: string;
  typename: string;
  fields: string[];
}

/** Every resolvable @key of every subgraph in the registry (a type with two keys gives two). */
function entityKeys(): EntityKey[] {
  const keys: EntityKey[] = [];
  for (const service of SERVICES.filter((s) => s.subgraph)) {
    const sdl = readSubgraphSchema(service.subgraph!);
    for (const [, typename, directives] of sdl.matchAll(/type (\w+)((?:\s+@\w+(?:\([^)]*\))?)*)\s*\{/g) as Iterable<
      [string, string, string]
    >) {
      for (const [, fields, rest] of directives.matchAll(/@key\(fields: "([^"]+)"([^)]*)\)/g) as Iterable<
        [string, string, string]
      >) {
        if (/resolvable:\s*false/.test(rest)) continue;
        keys.push({ service: service.name, typename, fields: fields.split(/\s+/) });
      }
    }
  }
  return keys;
}

const KEYS = entityKeys();

/**
 * Statements of the background machinery every service now runs (the notice relays and the durable
 * consumers of the events backbone poll on their own timers): not part of any `_entities` call, so
 * not counted, or a poll landing inside a measurement would be counted against the resolver.
 */
const BACKGROUND = /\b(event_deliveries|event_platform_groups|event_subscriptions|event_streams|notice_outbox)\b/;

/** Counts what reaches the database: every Prisma operation (raw ones included) and every SQL statement. */
function countingDatabase(db: TestDatabase): TestDatabase & { statements: () => number; reset: () => void } {
  let count = 0;
  const prisma = db.prisma.$extends({
    query: {
      async $allOperations({ args, query }) {
        count += 1;
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  const sql = {
    ...db.sql,
    query: ((text: string, params?: unknown[]) => {
      if (!BACKGROUND.test(text)) count += 1;
      return db.sql.query(text, params);
    }) as typeof db.sql.query,
    exec: (text: string) => db.sql.exec(text),
    transaction: <T>(work: Parameters<typeof db.sql.transaction<T>>[0]) =>
      db.sql.transaction<T>((tx) =>
        work({
          query: ((text: string, params?: unknown[]) => {
            if (!BACKGROUND.test(text)) count += 1;
            return tx.query(text, params);
          }) as typeof tx.query,
          exec: (text: string) => tx.exec(text),
        }),
      ),
  };
  return {
    ...db,
    prisma,
    sql,
    statements: () => count,
    reset: () => {
      count = 0;
    },
  };
}

function representation(key: EntityKey, i: number): Record<string, unknown> {
  const r: Record<string, unknown> = { __typename: key.typename };
  for (const f of key.fields)
    r[f] = f === 'id' ? randomUUID() : f === 'version' ? `1.0.${i}` : `${key.typename.toLowerCase()}-${i}`;
  return r;
}

let db: ReturnType<typeof countingDatabase>;
let harness: Harness;
let token: string;

beforeAll(async () => {
  db = countingDatabase(await createTestDatabase());
  const services = SERVICES.filter((s) => KEYS.some((k) => k.service === s.name) && !(s.name in KNOWN_EXCEPTIONS));
  // The workflow executor's poller claims work every 250 ms by default: slowed to its slowest, so
  // its background statements stay out of the counts (its first pass runs at start, before settling).
  harness = await startServices(services, { PASSWORD_SCRYPT_LOG_N: '10', WORKFLOW_POLL_MS: '60000' }, { db });
  token = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: 'batch-admin',
    tenantId: 'default',
    roles: ['admin'],
    scopes: ['read', 'write', 'admin'],
  });
  // The counter sees every statement of the process, background work included: the services'
  // start-up passes (OCR's sweep, retrieval's maintenance) ran into the first measurement on
  // PostgreSQL. Count only once the database has been quiet for a moment.
  await settled();
});

/** Waits (at most ~15 s) until half a second passes with no statement. Not a timing assertion. */
async function settled(): Promise<void> {
  for (let i = 0; i < 30; i++) {
    db.reset();
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (db.statements() === 0) return;
  }
}

afterAll(async () => {
  await harness?.close();
  await db?.drop();
});

it('the registry yields entity keys to check, on more than identity and ledger', () => {
  expect(new Set(KEYS.map((k) => k.service)).size).toBeGreaterThanOrEqual(5);
});

describe.each(KEYS.map((k) => [`${k.service} ${k.typename} @key(${k.fields.join(' ')})`, k] as const))(
  '%s',
  (_, key) => {
    const skip = KNOWN_EXCEPTIONS[key.service];
    (skip ? it.skip : it)(
      skip ? `known exception: ${skip}` : `${REFERENCES} references cost at most ${MAX_STATEMENTS} statements`,
      async () => {
        const fields = key.fields.join(' ');
        // Fresh references per call (new ids), so no cache between the two calls can hide a per-reference read.
        const body = () =>
          JSON.stringify({
            query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on ${key.typename} { ${fields} } } }`,
            variables: { r: Array.from({ length: REFERENCES }, (_, i) => representation(key, i)) },
          });
        // The fewer of two calls: a periodic background pass may still land inside one of them,
        // while a resolver that reads once per reference costs ~100 statements every time.
        let statements = Infinity;
        for (let attempt = 0; attempt < 2; attempt++) {
          db.reset();
          const res = await fetch(`${harness.services[key.service]!.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-tenant-id': 'default' },
            body: body(),
          });
          statements = Math.min(statements, db.statements());
          const json = (await res.json()) as { data?: { _entities: unknown[] }; errors?: unknown[] };
          expect(json.errors).toBeUndefined();
          expect(json.data?._entities).toHaveLength(REFERENCES);
        }
        expect(statements).toBeLessThanOrEqual(MAX_STATEMENTS);
      },
    );
  },
);

// The batched read keeps the tenant rule: in one mixed batch, the caller's own events resolve,
// another tenant's are null (the same statement count as above).
it("a batch that mixes tenants resolves only the caller's own records (ledger events)", async () => {
  const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
  const own = await tokens.issue({
    username: 'alice',
    tenantId: 'batch-a',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  const other = await tokens.issue({
    username: 'bob',
    tenantId: 'batch-b',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  const url = `${harness.services.ledger!.url}/graphql`;
  const gql = async (query: string, variables: unknown, bearer: string) =>
    (await (
      await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: JSON.stringify({ query, variables }),
      })
    ).json()) as { data?: any; errors?: unknown[] };
  const append = 'mutation($input: AppendLedgerEventInput!) { appendLedgerEvent(input: $input) { id } }';
  const ids: { own: string[]; other: string[] } = { own: [], other: [] };
  for (let i = 0; i < 5; i++) {
    ids.own.push(
      (await gql(append, { input: { eventType: 'rag_query', eventData: { i } } }, own)).data.appendLedgerEvent.id,
    );
    ids.other.push(
      (await gql(append, { input: { eventType: 'rag_query', eventData: { i } } }, other)).data.appendLedgerEvent.id,
    );
  }
  const mixed = ids.own.flatMap((id, i) => [id, ids.other[i]!]);
  db.reset();
  const res = await gql(
    'query ($r: [_Any!]!) { _entities(representations: $r) { ... on LedgerEvent { id tenantId } } }',
    { r: mixed.map((id) => ({ __typename: 'LedgerEvent', id })) },
    own,
  );
  expect(db.statements()).toBeLessThanOrEqual(MAX_STATEMENTS);
  expect(res.errors).toBeUndefined();
  expect(res.data._entities).toEqual(mixed.map((id, i) => (i % 2 === 0 ? { id, tenantId: 'batch-a' } : null)));
});
