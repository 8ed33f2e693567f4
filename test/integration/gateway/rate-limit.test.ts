// Per-tenant token bucket through the real gateway: a burst past the limit gets 429 with
// Retry-After and RateLimit-* headers, another tenant is unaffected, and the tenant recovers
// once the bucket refills. With REDIS_URL two gateways spend one shared budget.
import { randomUUID } from 'node:crypto';
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { deadUrl, fixtureSupergraphFile, redisAvailable, startGateway, tokenFor } from './gateway.support';

// Generous: each case starts gateway processes, which took over 60 s on a loaded CI machine (stop 39).
jest.setTimeout(180_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limit', () => {
  let ledger: FakeBackend;
  let supergraph: string;
  let nowhere: string;
  beforeAll(async () => {
    ledger = await startFakeBackend();
    nowhere = await deadUrl();
    supergraph = fixtureSupergraphFile(`${nowhere}/graphql`);
  });
  afterAll(async () => ledger?.close());

  const call = (url: string, token: string) =>
    fetch(`${url}/api/v1/ledger/events`, { headers: { authorization: `Bearer ${token}` } });

  it('refuses a burst past the limit with 429 and recovers after the refill (memory buckets)', async () => {
    const gw = await startGateway({
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      RATE_LIMIT_PER_SECOND: '2',
      RATE_LIMIT_BURST: '4',
    });
    try {
      const a = await tokenFor('tenant-a');
      const b = await tokenFor('tenant-b');
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(gw.url, a)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const limited = await call(gw.url, a);
      expect(limited.status).toBe(429);
      expect(await limited.json()).toEqual({ detail: expect.stringMatching(/Rate limit/) });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('ratelimit-limit')).toBe('4');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);

      // Another tenant has its own bucket.
      expect((await call(gw.url, b)).status).toBe(200);

      // Wait as long as the server said, then the tenant is served again. This sleep stays: the
      // refill is real time passing, and honouring Retry-After is the behaviour under test
      // (polling instead would spend the tokens it is waiting for).
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      const recovered = await call(gw.url, a);
      expect(recovered.status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('shares one budget between two gateways through Redis', async () => {
    if (!(await redisAvailable(REDIS_URL))) {
      // Asked for explicitly (CI sets REDIS_URL): an unreachable Redis is a failure, not a skip.
      if (process.env.REDIS_URL) throw new Error(`REDIS_URL is set but ${REDIS_URL} is not reachable`);
      console.warn('Redis not reachable: shared-bucket test skipped (set REDIS_URL to require it)');
      return;
    }
    const env = {
      LEDGER_URL: ledger.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: supergraph,
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '4',
      REDIS_URL,
    };
    const gw1 = await startGateway(env);
    const gw2 = await startGateway(env);
    try {
      const token = await tokenFor(`tenant-${randomUUID()}`); // fresh bucket key in Redis
      const statuses = [
        (await call(gw1.url, token)).status,
        (await call(gw2.url, token)).status,
        (await call(gw1.url, token)).status,
        (await call(gw2.url, token)).status,
      ];
      expect(statuses).toEqual([200, 200, 200, 200]);
      const fifth = await call(gw1.url, token);
      const sixth = await call(gw2.url, token);
      expect([fifth.status, sixth.status]).toEqual([429, 429]);
      expect(sixth.headers.get('retry-after')).toBe('1');
    } finally {
      await gw1.close();
      await gw2.close();
    }
  });
});
