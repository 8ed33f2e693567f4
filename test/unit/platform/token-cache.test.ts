import { slotOf, TokenCache } from '../../../platform/auth/token-cache';

const auth = Object.freeze({
  username: 'u',
  tenantId: 't',
  roles: Object.freeze([]) as unknown as string[],
  scopes: Object.freeze([]) as unknown as string[],
  isService: false,
});

describe('TokenCache', () => {
  it('forgets entries after the ttl, never outlives the token, and stays bounded', () => {
    let now = 1_000;
    const cache = new TokenCache(100, 2, () => now);
    cache.set('a', auth, now + 50);
    cache.set('b', auth, now + 10_000);
    expect(cache.get('a')).toBe(auth);
    now += 60;
    expect(cache.get('a')).toBeUndefined(); // token expired first
    expect(cache.get('b')).toBe(auth);
    now += 50;
    expect(cache.get('b')).toBeUndefined(); // ttl
    cache.set('c', auth, now + 10_000);
    cache.set('d', auth, now + 10_000);
    cache.set('e', auth, now + 10_000);
    expect(cache.size).toBe(2);
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('e')).toBe(auth);
  });
});

describe('TokenCache eviction order', () => {
  it('evicts the least recently used half first: a token read while old survives a flood', () => {
    const now = 1_000;
    const cache = new TokenCache(Infinity, 10, () => now);
    for (let i = 0; i < 10; i++) cache.set(`t${i}`, auth, now + 10_000);
    expect(cache.get('t0')).toBe(auth); // the oldest, read: moved to the newest end
    for (let i = 10; i < 15; i++) cache.set(`t${i}`, auth, now + 10_000); // five new ones evict five
    expect(cache.size).toBe(10);
    expect(cache.get('t0')).toBe(auth);
    for (const gone of ['t1', 't2', 't3', 't4', 't5']) expect(cache.get(gone)).toBeUndefined();
    expect(cache.get('t6')).toBe(auth);
  });
});

describe('TokenCache slots', () => {
  it('answers only for the very token stored: another with the same slot misses, and replaces it when set', () => {
    const now = 1_000;
    const cache = new TokenCache(Infinity, 10, () => now);
    // Same length and last characters: the same slot, different tokens.
    const a = 'header.payload-a.signature-0123456789';
    const b = 'header.payload-b.signature-0123456789';
    expect(slotOf(a)).toBe(slotOf(b));
    const other = Object.freeze({ ...auth, username: 'v' });
    cache.set(a, auth, now + 10_000);
    expect(cache.get(b)).toBeUndefined();
    expect(cache.get(a)).toBe(auth);
    cache.set(b, other, now + 10_000);
    expect(cache.get(b)).toBe(other);
    expect(cache.get(a)).toBeUndefined(); // evicted by the newer token of its slot: verified again
    expect(cache.size).toBe(1);
  });

  it('finds a token read from a fresh string, and not one differing in a single character', () => {
    const now = 1_000;
    const cache = new TokenCache(Infinity, 10, () => now);
    const token = `eyJhbGciOiJIUzI1NiJ9.${'x'.repeat(180)}.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG`;
    cache.set(token, auth, now + 10_000);
    expect(cache.get(`Bearer ${token}`.slice(7))).toBe(auth);
    for (const at of [0, 30, token.length - 1]) {
      const changed = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
      expect(cache.get(changed)).toBeUndefined();
    }
  });
});

describe('TokenCache shared verification', () => {
  it('verifies a token once for every caller asking while it runs, then answers from the cache', async () => {
    const now = 1_000;
    const cache = new TokenCache(Infinity, 10, () => now);
    let calls = 0;
    const verify = async () => {
      calls++;
      await new Promise((r) => setImmediate(r));
      return { auth, expiresAtMs: now + 10_000 };
    };
    const answers = await Promise.all(Array.from({ length: 50 }, () => cache.authenticate('tok', verify)));
    expect(calls).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(await cache.authenticate('tok', verify)).toBe(answers[0]);
    expect(calls).toBe(1);
  });

  it('shares a failure only while it is in flight: the next caller verifies again', async () => {
    const cache = new TokenCache(Infinity, 10, () => 1_000);
    let calls = 0;
    const refuse = async () => {
      calls++;
      throw new Error('bad token');
    };
    const both = [cache.authenticate('bad', refuse), cache.authenticate('bad', refuse)];
    for (const p of both) await expect(p).rejects.toThrow('bad token');
    expect(calls).toBe(1);
    await expect(cache.authenticate('bad', refuse)).rejects.toThrow('bad token');
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('a verifier that throws at once fails the call with a rejected promise', async () => {
    const cache = new TokenCache(Infinity, 10, () => 1_000);
    const p = cache.authenticate('x', () => {
      throw new Error('sync');
    });
    await expect(p).rejects.toThrow('sync');
  });
});
