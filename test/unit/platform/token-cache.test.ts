import { TokenCache } from '../../../platform/auth/token-cache';

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
