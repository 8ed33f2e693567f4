// The config service's memory bounds: the LRU both caches use, the serialised `/effective`
// answers (rest-compat/config/effective-bodies.ts: kept per current answer, dropped when the view
// moves on) and CachedConfig's per-tenant copies (at most `maxTenants`, least recently read first out).
import { CachedConfig } from '../../../platform/clients/config-cache';
import type { EffectiveConfigView } from '../../../platform/clients/config.client';
import { LruMap } from '../../../platform/clients/lru-map';
import { EffectiveBodies } from '../../../rest-compat/config/effective-bodies';

describe('LruMap', () => {
  it('evicts the least recently used entry, where a read counts as use and a peek does not', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now newer than b
    expect(lru.set('c', 3)).toEqual(['b']);
    expect(lru.keys()).toEqual(['a', 'c']);
    expect(lru.peek('a')).toBe(1); // no touch: a stays the oldest
    expect(lru.set('d', 4)).toEqual(['a']);
    expect(lru.size).toBe(2);
    expect(() => new LruMap(0)).toThrow(RangeError);
  });

  it('keeps the order exact when the most recently used key is read again (no move) and after it moved on', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('b')).toBe(2); // already the newest
    expect(lru.get('a')).toBe(1); // a is now the newest
    expect(lru.get('b')).toBe(2); // and b again: it must move
    expect(lru.set('c', 3)).toEqual(['a']);
    lru.delete('c');
    lru.set('c', 4);
    expect(lru.get('b')).toBe(2);
    expect(lru.keys()).toEqual(['c', 'b']);
  });
});

describe('EffectiveBodies', () => {
  const answer = (seq: number) => ({ tenant_id: 't', seq, config: { a: { n: seq } }, provenance: [] });

  it('serialises a current answer once and serves the same body and ETag again', () => {
    const bodies = new EffectiveBodies(8);
    const serialise = jest.fn(() => answer(3));
    const key = { view: 1, key: '["t",3,1,"","","u"]' };
    const first = bodies.body(key, serialise);
    const again = bodies.body(key, serialise);
    expect(serialise).toHaveBeenCalledTimes(1);
    expect(again).toBe(first);
    expect(JSON.parse(first.text)).toEqual(answer(3));
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('a change (new seq, new view) gives a new body and drops the old view’s bodies', () => {
    const bodies = new EffectiveBodies(8);
    const before = bodies.body({ view: 1, key: '["t",3,1]' }, () => answer(3));
    bodies.body({ view: 1, key: '["u",3,1]' }, () => answer(3));
    expect(bodies.size).toBe(2);
    const after = bodies.body({ view: 2, key: '["t",4,2]' }, () => answer(4));
    expect(after.text).not.toBe(before.text);
    expect(after.etag).not.toBe(before.etag);
    expect(bodies.size).toBe(1);
    // An answer computed under the older view (still in flight) is served but never kept.
    const late = jest.fn(() => answer(3));
    bodies.body({ view: 1, key: '["t",3,1]' }, late);
    bodies.body({ view: 1, key: '["t",3,1]' }, late);
    expect(late).toHaveBeenCalledTimes(2);
    expect(bodies.size).toBe(1);
  });

  it('keeps nothing for answers without a key (as_of, resolved secrets) or with a size of 0', () => {
    const bodies = new EffectiveBodies(8);
    const serialise = jest.fn(() => answer(1));
    bodies.body(undefined, serialise);
    bodies.body(undefined, serialise);
    expect(serialise).toHaveBeenCalledTimes(2);
    expect(bodies.size).toBe(0);
    const none = new EffectiveBodies(0);
    none.body({ view: 1, key: 'k' }, serialise);
    expect(none.size).toBe(0);
  });

  it('is bounded: the least recently read answer goes first', () => {
    const bodies = new EffectiveBodies(2);
    const make = (tenant: string) => jest.fn(() => ({ ...answer(1), tenant_id: tenant }));
    const a = make('a');
    bodies.body({ view: 1, key: 'a' }, a);
    bodies.body({ view: 1, key: 'b' }, make('b'));
    bodies.body({ view: 1, key: 'a' }, a); // a read again: b is the oldest
    bodies.body({ view: 1, key: 'c' }, make('c'));
    expect(bodies.size).toBe(2);
    bodies.body({ view: 1, key: 'a' }, a);
    expect(a).toHaveBeenCalledTimes(1);
  });
});

describe('CachedConfig bound', () => {
  const view = (tenantId: string, seq = 1): EffectiveConfigView =>
    ({ tenant_id: tenantId, seq, config: { gateway: { tenant: tenantId } }, provenance: [] }) as EffectiveConfigView;
  const logger = { warn: () => {} };

  it('holds at most maxTenants copies, dropping the least recently read, and fetches a dropped one again', async () => {
    const fetched: string[] = [];
    const client = {
      effective: async (_c: unknown, tenantId: string) => {
        fetched.push(tenantId);
        return view(tenantId);
      },
    };
    const cache = new CachedConfig(client, { logger, refreshMs: 0, maxTenants: 2 });
    await cache.namespace('a', 'gateway');
    await cache.namespace('b', 'gateway');
    await cache.namespace('a', 'gateway'); // from memory; a is now the most recent
    await cache.namespace('c', 'gateway'); // evicts b
    expect(cache.size).toBe(2);
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')?.tenant_id).toBe('a');
    expect(fetched).toEqual(['a', 'b', 'c']);
    expect(await cache.namespace('b', 'gateway')).toEqual({ tenant: 'b' }); // fetched again, evicts a
    expect(fetched).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.peek('a')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('defaults to 1,000 tenants', async () => {
    const client = { effective: async (_c: unknown, tenantId: string) => view(tenantId) };
    const cache = new CachedConfig(client, { logger, refreshMs: 0 });
    for (let i = 0; i < 1_005; i++) await cache.effective(`t${i}`);
    expect(cache.size).toBe(1_000);
    expect(cache.peek('t0')).toBeUndefined();
    expect(cache.peek('t1004')?.seq).toBe(1);
  });
});
