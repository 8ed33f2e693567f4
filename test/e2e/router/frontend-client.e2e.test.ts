// The client conformance suite: the router driven exactly as a frontend drives it, with Apollo
// Client 4 (HttpLink, InMemoryCache, the persisted-queries link, GraphQLWsLink, an error link that
// refreshes an expired token) and graphql-ws's own client. Every later service's GraphQL surface
// is tried the same way: add its operations here.
import { createHash } from 'node:crypto';
import { ApolloClient, ApolloLink, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql as tag } from '@apollo/client';
import { ErrorLink } from '@apollo/client/link/error';
import { SetContextLink } from '@apollo/client/link/context';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import { from, switchMap } from 'rxjs';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { DEV, gql, startPlatform, type Platform } from './platform.support';

jest.setTimeout(180_000);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const GRAPHQL_RESPONSE = 'application/graphql-response+json';
/** What Apollo Client 4 sends. */
const CLIENT_ACCEPT = `${GRAPHQL_RESPONSE},application/json;q=0.9`;

interface Session {
  token: string;
  refreshToken?: string;
  refreshes: number;
}

/** An Apollo Client the way a frontend builds one: token from the session, refresh on UNAUTHENTICATED. */
function frontendClient(p: Platform, session: Session, options: { persisted?: 'post' | 'get' } = {}): ApolloClient {
  const auth = new SetContextLink((prev) => ({
    headers: { ...prev.headers, authorization: `Bearer ${session.token}` },
  }));
  const refresh = new ErrorLink(({ error, operation, forward }) => {
    const expired =
      CombinedGraphQLErrors.is(error) && error.errors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
    if (!expired || !session.refreshToken || operation.getContext().retried) return undefined;
    return from(refreshSession(p, session)).pipe(
      switchMap(() => {
        operation.setContext({ retried: true });
        return forward(operation);
      }),
    );
  });
  const http = new HttpLink({ uri: `${p.gateway}/graphql`, fetch });
  const links: ApolloLink[] = [refresh, auth];
  if (options.persisted)
    links.push(new PersistedQueryLink({ sha256, useGETForHashedQueries: options.persisted === 'get' }));
  return new ApolloClient({ link: ApolloLink.from([...links, http]), cache: new InMemoryCache() });
}

async function refreshSession(p: Platform, session: Session): Promise<void> {
  const { body } = await gql(
    p.gateway,
    'mutation($t: String!) { refreshToken(refreshToken: $t) { accessToken refreshToken } }',
    { variables: { t: session.refreshToken } },
  );
  session.token = body.data.refreshToken.accessToken;
  session.refreshToken = body.data.refreshToken.refreshToken;
  session.refreshes += 1;
}

async function loginSession(p: Platform, username: string, password: string): Promise<Session> {
  const { body } = await gql(
    p.gateway,
    'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken refreshToken } }',
    { variables: { u: username, p: password } },
  );
  return { token: body.data.login.accessToken, refreshToken: body.data.login.refreshToken, refreshes: 0 };
}

const issueExpired = () =>
  new AccessTokens(TEST_JWT_SECRET, 60).issue(
    { username: 'admin', tenantId: 'default', roles: ['admin', 'user'], scopes: ['read', 'write', 'admin'] },
    Date.now() - 3_600_000,
  );

/** The error codes of a failed Apollo Client operation, or the error's name when it is not GraphQL. */
function codesOf(error: unknown): string[] {
  if (CombinedGraphQLErrors.is(error)) return error.errors.map((e) => String(e.extensions?.code));
  return [`not a GraphQL error: ${(error as Error)?.name}`];
}

const APPEND = tag`mutation Append($input: AppendLedgerEventInput!) { appendLedgerEvent(input: $input) { id seq eventType } }`;

describe('the router as a frontend meets it', () => {
  let p: Platform;
  let admin: Session;
  let expired: string;
  const expiredToken = () => expired;

  beforeAll(async () => {
    expired = await issueExpired();
    p = await startPlatform();
    admin = await loginSession(p, DEV.admin.username, DEV.admin.password);
  });
  afterAll(async () => p?.close());

  describe('queries and mutations (Apollo Client 4)', () => {
    it('normalises a cross-subgraph query in the cache: one User object for every event that names it', async () => {
      const client = frontendClient(p, admin);
      for (const n of [1, 2])
        await client.mutate({
          mutation: APPEND,
          variables: { input: { eventType: 'fe_cache', eventData: { n }, userId: 'admin' } },
        });
      const { data } = await client.query<any>({
        query: tag`{ ledgerEvents(filter: { eventType: "fe_cache" }) { nodes { id eventType user { id username isActive } } } }`,
      });
      expect(data.ledgerEvents.nodes).toHaveLength(2);
      const cache = client.cache.extract() as Record<string, unknown>;
      const users = Object.keys(cache).filter((k) => k.startsWith('User:'));
      expect(users).toEqual([`User:${data.ledgerEvents.nodes[0].user.id}`]);
      expect(data.ledgerEvents.nodes[1].user.id).toBe(data.ledgerEvents.nodes[0].user.id);
      expect(Object.keys(cache).filter((k) => k.startsWith('LedgerEvent:'))).toHaveLength(2);
    });

    it('repeats a mutation with an idempotency key without a second event, and without a tenant argument', async () => {
      const client = frontendClient(p, admin);
      const input = { eventType: 'fe_idem', eventData: { n: 1 }, idempotencyKey: `fe-${Date.now()}` };
      const first = await client.mutate<any>({ mutation: APPEND, variables: { input } });
      const again = await client.mutate<any>({ mutation: APPEND, variables: { input } });
      expect(again.data.appendLedgerEvent.id).toBe(first.data.appendLedgerEvent.id);
    });

    it('reports a bad input with BAD_USER_INPUT naming the GraphQL field', async () => {
      const client = frontendClient(p, admin);
      const error = await client
        .mutate({ mutation: APPEND, variables: { input: { eventType: '', eventData: {} } } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(codesOf(error)).toEqual(['BAD_USER_INPUT']);
      expect((error as CombinedGraphQLErrors).errors[0]!.extensions?.field).toBe('eventType');
    });

    it('reports a missing scope as FORBIDDEN', async () => {
      const user = await loginSession(p, DEV.user.username, DEV.user.password);
      const error = await frontendClient(p, user)
        .mutate({ mutation: APPEND, variables: { input: { eventType: 'x', eventData: {} } } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(codesOf(error)).toEqual(['FORBIDDEN']);
    });
  });

  describe('tokens', () => {
    it.each([
      ['an expired token', expiredToken],
      ['a malformed token', () => 'not-a-jwt'],
    ])('gives %s to Apollo Client as a GraphQL UNAUTHENTICATED error, not a network error', async (_label, token) => {
      const client = frontendClient(p, { token: token(), refreshes: 0 });
      const error = await client.query({ query: tag`{ me { username } }` }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(codesOf(error)).toEqual(['UNAUTHENTICATED']);
    });

    it('refreshes a token that expires mid-session and retries the operation', async () => {
      const session = await loginSession(p, DEV.admin.username, DEV.admin.password);
      const client = frontendClient(p, session);
      const before = await client.query<any>({ query: tag`{ me { username } }`, fetchPolicy: 'network-only' });
      expect(before.data.me.username).toBe('admin');
      session.token = expiredToken();
      const after = await client.query<any>({ query: tag`{ me { username tenantId } }`, fetchPolicy: 'network-only' });
      expect(after.data.me).toEqual({ __typename: 'User', username: 'admin', tenantId: 'default' });
      expect(session.refreshes).toBe(1);
    });

    it('gives a foreign tenant header FORBIDDEN', async () => {
      const client = new ApolloClient({
        link: new HttpLink({
          uri: `${p.gateway}/graphql`,
          fetch,
          headers: { authorization: `Bearer ${admin.token}`, 'x-tenant-id': 'someone-else' },
        }),
        cache: new InMemoryCache(),
      });
      const error = await client.query({ query: tag`{ me { username } }` }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(codesOf(error)).toEqual(['FORBIDDEN']);
    });
  });

  describe("the router's own refusals follow GraphQL over HTTP", () => {
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${p.gateway}/graphql`, {
        method: 'POST',
        headers: { accept: CLIENT_ACCEPT, 'content-type': 'application/json', ...headers },
        body,
      });

    it.each([
      [
        'an expired token',
        401,
        'UNAUTHENTICATED',
        () => post(JSON.stringify({ query: '{ me { username } }' }), { authorization: `Bearer ${expiredToken()}` }),
      ],
      [
        'a malformed Authorization header',
        401,
        'UNAUTHENTICATED',
        () => post(JSON.stringify({ query: '{ me { username } }' }), { authorization: 'Basic abc' }),
      ],
      [
        'a foreign tenant',
        403,
        'FORBIDDEN',
        () =>
          post(JSON.stringify({ query: '{ me { username } }' }), {
            authorization: `Bearer ${admin.token}`,
            'x-tenant-id': 'other',
          }),
      ],
      [
        'a body that is not JSON',
        400,
        'BAD_REQUEST',
        () => post('{"query": ', { authorization: `Bearer ${admin.token}` }),
      ],
      [
        'a query too deep',
        400,
        'QUERY_TOO_DEEP',
        () =>
          post(
            JSON.stringify({
              query: `{ ledgerEvents { nodes ${'{ user { auditTrail { nodes '.repeat(4)}{ id }${' } } }'.repeat(4)} } }`,
            }),
            { authorization: `Bearer ${admin.token}` },
          ),
      ],
      [
        'a query too expensive',
        400,
        'QUERY_TOO_COMPLEX',
        () =>
          post(
            JSON.stringify({
              query: '{ ledgerEvents(first: 1000) { nodes { user { auditTrail(first: 100) { nodes { id } } } } } }',
            }),
            { authorization: `Bearer ${admin.token}` },
          ),
      ],
      [
        'a GET without a preflight header (CSRF)',
        400,
        'BAD_REQUEST',
        () =>
          fetch(`${p.gateway}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
            headers: { accept: CLIENT_ACCEPT },
          }),
      ],
      [
        'an oversized body',
        413,
        'PAYLOAD_TOO_LARGE',
        () =>
          post(JSON.stringify({ query: `{ __typename }`, variables: { pad: 'x'.repeat(3 * 1024 * 1024) } }), {
            authorization: `Bearer ${admin.token}`,
          }),
      ],
    ] as [string, number, string, () => Promise<Response>][])(
      '%s: %i with a GraphQL error body and code %s',
      async (_label, status, code, send) => {
        const res = await send();
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
        const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
        expect(body.errors[0]!.extensions.code).toBe(code);
        expect(typeof body.errors[0]!.message).toBe('string');
      },
    );

    it('answers a tenant over its rate limit with RATE_LIMITED and Retry-After', async () => {
      const limited = await startPlatform({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
      try {
        const token = await new AccessTokens(TEST_JWT_SECRET, 60).issue({
          username: 'admin',
          tenantId: 'default',
          roles: ['admin'],
          scopes: ['read'],
        });
        const statuses: number[] = [];
        let res: Response | undefined;
        for (let i = 0; i < 3; i++) {
          res = await fetch(`${limited.gateway}/graphql`, {
            method: 'POST',
            headers: { accept: CLIENT_ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: '{"query":"{ __typename }"}',
          });
          statuses.push(res.status);
          if (res.status !== 429) await res.body?.cancel();
        }
        expect(statuses).toEqual([200, 200, 429]);
        expect(res!.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
        const body = (await res!.json()) as any;
        expect(body.errors[0].extensions.code).toBe('RATE_LIMITED');
        expect(body.errors[0].extensions.retryAfterSeconds).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });

    it('keeps application/json for a client that does not accept the GraphQL media type', async () => {
      const res = await fetch(`${p.gateway}/graphql`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          authorization: `Bearer ${expiredToken()}`,
        },
        body: '{"query":"{ me { username } }"}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('persisted queries', () => {
    it.each(['post', 'get'] as const)(
      'runs a query by hash over %s through the persisted-queries link',
      async (method) => {
        const client = frontendClient(p, admin, { persisted: method });
        const query = tag`query FeApq${method} { me { username } }`;
        const first = await client.query<any>({ query, fetchPolicy: 'network-only' });
        const second = await client.query<any>({ query, fetchPolicy: 'network-only' });
        expect(first.data.me.username).toBe('admin');
        expect(second.data.me.username).toBe('admin');
      },
    );
  });

  describe('subscriptions with a resume point', () => {
    const wsUrl = () => `${p.gateway.replace('http', 'ws')}/graphql`;
    const SUBSCRIBE =
      'subscription($after: Int) { ledgerEventAppended(eventType: "fe_burst", afterSeq: $after) { seq eventData } }';

    /** Appends `count` events as fast as the ledger takes them (16 at a time), straight to the ledger's REST door. */
    async function burst(count: number, start: number): Promise<void> {
      let next = start;
      const worker = async () => {
        while (next < start + count) {
          const n = next++;
          const res = await fetch(`${p.urls.ledger}/append`, {
            method: 'POST',
            headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tenant_id: 'default', event_type: 'fe_burst', event_data: { n } }),
          });
          expect(res.status).toBe(200);
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    }

    async function position(): Promise<number> {
      const { body } = await gql(p.gateway, '{ ledgerPosition { seq } }', { token: admin.token });
      return body.data.ledgerPosition.seq;
    }

    function subscribe(client: Client, after: number, onEvent: (seq: number, n: number) => void): () => void {
      return client.subscribe<any>(
        { query: SUBSCRIBE, variables: { after } },
        {
          next: (r) => {
            if (r.errors) throw new Error(JSON.stringify(r.errors));
            onEvent(r.data.ledgerEventAppended.seq, r.data.ledgerEventAppended.eventData.n);
          },
          error: () => {},
          complete: () => {},
        },
      );
    }

    it('delivers 1,000 events appended from the moment of subscribing, each once and in order', async () => {
      const from = await position();
      const client = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${admin.token}` },
        retryAttempts: 0,
      });
      const seqs: number[] = [];
      try {
        subscribe(client, from, (seq) => seqs.push(seq));
        // No waiting for the subscription to be live: that is the point.
        await burst(1000, 0);
        await until(() => seqs.length >= 1000, 'all 1,000 events');
        expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => from + i + 1));
      } finally {
        await client.dispose();
      }
    });

    it('resumes after a reconnect mid-stream from the last seq received, without duplicates or gaps', async () => {
      const from = await position();
      const seqs: number[] = [];
      const first = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${admin.token}` },
        retryAttempts: 0,
      });
      let firstOpen = true;
      subscribe(first, from, (seq) => firstOpen && seqs.push(seq));
      const appending = burst(1000, 0);
      await until(() => seqs.length >= 200, 'the first 200 events');
      // The page is closed: what arrived until now is what this client has.
      firstOpen = false;
      await first.dispose();
      const last = seqs[seqs.length - 1]!;
      const second = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${admin.token}` },
        retryAttempts: 0,
      });
      try {
        subscribe(second, last, (seq) => seqs.push(seq));
        await appending;
        await until(() => seqs.length >= 1000, 'all 1,000 events');
        expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => from + i + 1));
      } finally {
        await second.dispose();
      }
    });

    it('works through GraphQLWsLink as Apollo Client subscribes', async () => {
      const from = await position();
      const ws = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: () => ({ authorization: `Bearer ${admin.token}` }),
        retryAttempts: 0,
      });
      const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
      const got: number[] = [];
      const sub = client
        .subscribe<any>({ query: tag(SUBSCRIBE), variables: { after: from } })
        .subscribe({ next: (r) => got.push(r.data.ledgerEventAppended.seq) });
      try {
        await burst(20, 0);
        await until(() => got.length >= 20, '20 events through Apollo Client');
        expect(got).toEqual(Array.from({ length: 20 }, (_, i) => from + i + 1));
      } finally {
        sub.unsubscribe();
        await ws.dispose();
      }
    });

    it("replays only the subscriber's own tenant from a resume point", async () => {
      const foreign = await new AccessTokens(TEST_JWT_SECRET, 60).issue({
        username: 'b-admin',
        tenantId: 'tenant-fe-b',
        roles: ['admin'],
        scopes: ['read', 'write', 'admin'],
      });
      const client = createClient({
        url: wsUrl(),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${foreign}` },
        retryAttempts: 0,
      });
      const seen: { seq: number; n: number }[] = [];
      try {
        // From the very start of tenant-fe-b's chain while the default tenant has many events.
        subscribe(client, 0, (seq, n) => seen.push({ seq, n }));
        await burst(5, 0);
        const own = await fetch(`${p.urls.ledger}/append`, {
          method: 'POST',
          headers: { authorization: `Bearer ${foreign}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tenant_id: 'tenant-fe-b', event_type: 'fe_burst', event_data: { n: -1 } }),
        });
        expect(own.status).toBe(200);
        await until(() => seen.length > 0, "tenant-fe-b's own event");
        await burst(5, 5);
        const marker = await fetch(`${p.urls.ledger}/append`, {
          method: 'POST',
          headers: { authorization: `Bearer ${foreign}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tenant_id: 'tenant-fe-b', event_type: 'fe_burst', event_data: { n: -2 } }),
        });
        expect(marker.status).toBe(200);
        await until(() => seen.length >= 2, "tenant-fe-b's second event");
        expect(seen).toEqual([
          { seq: 1, n: -1 },
          { seq: 2, n: -2 },
        ]);
      } finally {
        await client.dispose();
      }
    });
  });
});
