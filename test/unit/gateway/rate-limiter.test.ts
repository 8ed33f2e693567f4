import { MemoryRateLimiter } from '../../../router/edge/rate-limit/memory-rate-limiter';

describe('MemoryRateLimiter', () => {
  it('allows the burst, refuses the next, refills at the rate and never above the burst', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter({ perSecond: 10, burst: 3 }, () => now);
    const taken = [1, 2, 3, 4].map(() => limiter.takeSync('t').allowed);
    expect(taken).toEqual([true, true, true, false]);
    const refused = limiter.takeSync('t');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3, retryAfterSeconds: 1 });
    now += 100; // one token back
    expect(limiter.takeSync('t').allowed).toBe(true);
    expect(limiter.takeSync('t').allowed).toBe(false);
    now += 60_000;
    expect(limiter.takeSync('t')).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.takeSync('other').remaining).toBe(2);
    await limiter.close();
  });
});
