// The per-address bucket that runs before authentication: a flood of invalid tokens from one
// address gets 429 (not endless 401s) on /api/v1, /graphql and the graphql-ws upgrade, while a
// valid tenant calling from another address is served, and still meets its tenant bucket. With
// Redis two gateways spend one budget per address. Other addresses are real: loopback answers on
// all of 127.0.0.0/8, so requests are sent from 127.0.0.2, 127.0.0.3, ... Behind a trusted proxy
// (TRUSTED_PROXIES) the budget is the forwarded client's, and nobody else can forge one.
import http from 'node:http';
import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { deadUrl, fixtureSupergraphFile, redisAvailable, startGateway, tokenFor } from './gateway.support';

jest.setTimeout(60_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** One request from a chosen local address (the gateway sees it as the client's). */
function from(
  address: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, localAddress: address, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const bad = { authorization: 'Bearer not-a-valid-token' };

/** The first 429 among a few quick tries (a refill of 1/s may let one through), else the last answer. */
async function refusedWithin<T extends { status: number }>(tries: number, send: () => Promise<T>): Promise<T> {
  let answer = await send();
  for (let i = 1; i < tries && answer.status !== 429; i++) answer = await send();
  return answer;
}

describe('per-address rate limit before authentication', () => {
  let ledger: FakeBackend;
  let nowhere: string;
  let supergraph: string;
  beforeAll(async () => {
    ledger = await startFakeBackend();
    nowhere = await deadUrl();
    supergraph = fixtureSupergraphFile(`${nowhere}/graphql`);
  });
  afterAll(async () => ledger?.close());

  it('answers a flood of invalid tokens with 429 after the burst, on REST, GraphQL and WebSocket upgrades; another address with a valid token is served', async () => {
    // Refill 1/s so the burst, not the refill, decides within the test; tenants have a large budget.
    const gw = await startGateway({
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      IP_RATE_LIMIT_PER_SECOND: '1',
      IP_RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
    });
    try {
      const attacker = '127.0.0.2';
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await from(attacker, `${gw.url}/api/v1/ledger/events`, { headers: bad })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      // The burst is spent: refused before the token is looked at (three tries, in case a refill lands).
      const refused = await refusedWithin(3, () => from(attacker, `${gw.url}/api/v1/ledger/events`, { headers: bad }));
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: expect.stringMatching(/Too many requests/) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      // The same address's GraphQL and WebSocket attempts spend the same bucket.
      const gql = await refusedWithin(3, () =>
        from(attacker, `${gw.url}/graphql`, {
          method: 'POST',
          headers: { ...bad, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ publicInfo }' }),
        }),
      );
      expect(gql.status).toBe(429);
      // On /graphql the same refusal is a GraphQL response (router/graphql/graphql-refusals.ts).
      expect(gql.body).toEqual({
        errors: [
          {
            message: expect.stringMatching(/Too many requests/),
            extensions: { code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) },
          },
        ],
      });
      expect(Number(gql.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const upgrade = await refusedWithin(
        3,
        () =>
          new Promise<{ status: number }>((resolve) => {
            const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
              localAddress: attacker,
            });
            ws.on('unexpected-response', (_req, res) => {
              resolve({ status: res.statusCode ?? 0 });
              ws.terminate();
            });
            ws.on('open', () => {
              resolve({ status: 101 });
              ws.terminate();
            });
            ws.on('error', () => {});
          }),
      );
      expect(upgrade.status).toBe(429);

      // A tenant with a valid token calling from another address is unaffected.
      const token = await tokenFor('tenant-a');
      const served = await from('127.0.0.3', `${gw.url}/api/v1/ledger/events`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(served.status).toBe(200);
      const servedGql = await from('127.0.0.3', `${gw.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(servedGql.status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it("behind a trusted proxy (TRUSTED_PROXIES), budgets and the X-Forwarded-For sent upstream are the resolved client's, on REST and GraphQL", async () => {
    // 127.0.0.7 plays the balancer; 127.0.0.8 is a client calling the gateway directly.
    const gw = await startGateway({
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      IP_RATE_LIMIT_PER_SECOND: '1',
      IP_RATE_LIMIT_BURST: '3',
      RATE_LIMIT_PER_SECOND: '1000',
      RATE_LIMIT_BURST: '1000',
      TRUSTED_PROXIES: '127.0.0.7, ::1',
    });
    try {
      const viaProxy = (client: string, headers: Record<string, string> = bad) =>
        from('127.0.0.7', `${gw.url}/api/v1/ledger/events`, {
          headers: { ...headers, 'x-forwarded-for': `198.51.100.250, ${client}` },
        });
      // The backend is told who the client is: the right-most untrusted address, not what it forged.
      const token = await tokenFor('tenant-c');
      const served = await viaProxy('198.51.100.1', { authorization: `Bearer ${token}` });
      expect(served.status).toBe(200);
      expect((served.body as { headers: Record<string, string> }).headers['x-forwarded-for']).toBe('198.51.100.1');
      // Client 198.51.100.2 spends its burst of 3 through the proxy.
      const spent = [];
      for (let i = 0; i < 3; i++) spent.push((await viaProxy('198.51.100.2')).status);
      expect(spent).toEqual([401, 401, 401]);
      expect((await refusedWithin(3, () => viaProxy('198.51.100.2'))).status).toBe(429);
      const gql = await refusedWithin(3, () =>
        from('127.0.0.7', `${gw.url}/graphql`, {
          method: 'POST',
          headers: { ...bad, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.2' },
          body: JSON.stringify({ query: '{ publicInfo }' }),
        }),
      );
      expect(gql.status).toBe(429);
      // Another client behind the same proxy has its own budget.
      expect((await viaProxy('198.51.100.3')).status).toBe(401);
      // A client that is not a trusted proxy cannot borrow 198.51.100.3's name, nor its budget.
      const direct = [];
      for (let i = 0; i < 3; i++)
        direct.push(
          (
            await from('127.0.0.8', `${gw.url}/api/v1/ledger/events`, {
              headers: { ...bad, 'x-forwarded-for': `198.51.100.${60 + i}` },
            })
          ).status,
        );
      expect(direct).toEqual([401, 401, 401]);
      expect(
        (
          await refusedWithin(3, () =>
            from('127.0.0.8', `${gw.url}/api/v1/ledger/events`, {
              headers: { ...bad, 'x-forwarded-for': '198.51.100.3' },
            }),
          )
        ).status,
      ).toBe(429);
      expect((await viaProxy('198.51.100.3')).status).toBe(401);
    } finally {
      await gw.close();
    }
  });

  it('keeps the tenant bucket after authentication', async () => {
    const gw = await startGateway({
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      IP_RATE_LIMIT_PER_SECOND: '1',
      IP_RATE_LIMIT_BURST: '100',
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '3',
    });
    try {
      const token = await tokenFor('tenant-b');
      const answers = [];
      for (let i = 0; i < 4; i++)
        answers.push(
          await from('127.0.0.4', `${gw.url}/api/v1/ledger/events`, { headers: { authorization: `Bearer ${token}` } }),
        );
      expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers[3]!.status).toBe(429);
      expect(answers[3]!.body).toEqual({ detail: expect.stringMatching(/for this tenant/) });
    } finally {
      await gw.close();
    }
  });

  it('shares one budget per address between two gateways through Redis', async () => {
    if (!(await redisAvailable(REDIS_URL))) {
      if (process.env.REDIS_URL) throw new Error(`REDIS_URL is set but ${REDIS_URL} is not reachable`);
      console.warn('Redis not reachable: shared per-address bucket test skipped (set REDIS_URL to require it)');
      return;
    }
    const env = {
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      IP_RATE_LIMIT_PER_SECOND: '1',
      IP_RATE_LIMIT_BURST: '4',
      REDIS_URL,
    };
    const gw1 = await startGateway(env);
    const gw2 = await startGateway(env);
    try {
      // A fresh address per run, so a bucket left in Redis by an earlier run does not count.
      const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
      const statuses = [];
      for (const gw of [gw1, gw2, gw1, gw2])
        statuses.push((await from(address, `${gw.url}/api/v1/ledger/events`, { headers: bad })).status);
      expect(statuses).toEqual([401, 401, 401, 401]);
      // Four taken across both gateways: the burst is spent for each of them.
      expect(
        (await refusedWithin(3, () => from(address, `${gw2.url}/api/v1/ledger/events`, { headers: bad }))).status,
      ).toBe(429);
      expect(
        (await refusedWithin(3, () => from(address, `${gw1.url}/api/v1/ledger/events`, { headers: bad }))).status,
      ).toBe(429);
    } finally {
      await gw1.close();
      await gw2.close();
    }
  });
});
