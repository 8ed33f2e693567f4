// The pack source's moving parts on their own: the LRU/TTL cache, the signature verifier's key set
// (fetched once, refetched for an unknown key id at most once per interval), and a deprecation
// that lands while a fetch is in flight never leaves the pack cached.
import { generateKeyPairSync, sign } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { RulePackKeySet, RulePackVersionView } from '../../../platform/clients/rulepack-registry.client';
import { createLogger } from '../../../platform/logging/logger';
import { TtlLru } from '../../../subgraphs/validation/pack.cache';
import { PackSignatureVerifier } from '../../../subgraphs/validation/pack-signature';
import { RulePackSource, type ResolvedPack } from '../../../subgraphs/validation/rule-pack.source';
import { KYC_PACK } from '../../e2e/validation/support/packs';

const logger = createLogger('CRITICAL', 'test');
const bytes = (v: unknown) => Buffer.from(canonicalize(v)!, 'utf8');

function keyPair(kid: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
  return {
    kid,
    jwk: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: jwk.x, kid, use: 'sig' as const, alg: 'EdDSA' as const },
    sign: (v: unknown) => sign(null, bytes(v), privateKey).toString('base64url'),
  };
}

describe('TtlLru', () => {
  it('evicts the least recently used entry and expires entries after the TTL', () => {
    let now = 0;
    const cache = new TtlLru<number>(2, 100, () => now);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    now = 150;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
  });

  it('size 0 or TTL 0 caches nothing', () => {
    const none = new TtlLru<number>(0, 100);
    none.set('a', 1);
    expect(none.get('a')).toBeUndefined();
    const instant = new TtlLru<number>(10, 0);
    instant.set('a', 1);
    expect(instant.get('a')).toBeUndefined();
  });
});

describe('PackSignatureVerifier', () => {
  it('verifies with the published key, fetches the key set once, and refetches for an unknown key id only after the interval', async () => {
    let now = 0;
    const first = keyPair('k1');
    const rotated = keyPair('k2');
    let published: RulePackKeySet = { keys: [first.jwk] };
    let fetches = 0;
    const verifier = new PackSignatureVerifier(
      {
        signingKeys: async () => {
          fetches++;
          return published;
        },
      },
      { ttlMs: 60_000, refetchAfterMs: 5_000, now: () => now },
    );
    const data = bytes(KYC_PACK);
    expect(await verifier.verify(data, first.sign(KYC_PACK), 'k1')).toEqual({ ok: true });
    expect(await verifier.verify(data, first.sign(KYC_PACK), 'k1')).toEqual({ ok: true });
    expect(fetches).toBe(1);

    published = { keys: [first.jwk, rotated.jwk] };
    // Too soon after the last fetch: an unknown key id does not reach the registry.
    expect(await verifier.verify(data, rotated.sign(KYC_PACK), 'k2')).toMatchObject({ ok: false });
    expect(fetches).toBe(1);
    now = 6_000;
    expect(await verifier.verify(data, rotated.sign(KYC_PACK), 'k2')).toEqual({ ok: true });
    expect(fetches).toBe(2);
    // Another key's signature under a published key id never verifies.
    expect(await verifier.verify(data, rotated.sign(KYC_PACK), 'k1')).toEqual({
      ok: false,
      reason: 'its signature does not match its content',
    });
    expect(await verifier.verify(bytes({ ...KYC_PACK, rules: [] }), first.sign(KYC_PACK), 'k1')).toMatchObject({
      ok: false,
    });
  });

  it('ignores keys that are not Ed25519 signature keys', async () => {
    const k = keyPair('k1');
    const verifier = new PackSignatureVerifier(
      { signingKeys: async () => ({ keys: [{ ...k.jwk, crv: 'X25519' as never }] }) },
      { ttlMs: 60_000 },
    );
    expect(await verifier.verify(bytes(KYC_PACK), k.sign(KYC_PACK), 'k1')).toEqual({
      ok: false,
      reason: "its signing key 'k1' is not published by the registry",
    });
  });
});

describe('RulePackSource', () => {
  it('a deprecation during a fetch keeps the fetched pack out of the cache', async () => {
    const k = keyPair('k1');
    const view: RulePackVersionView = {
      pack_id: 'kyc-basic',
      version: '1.0.0',
      status: 'certified',
      pack: KYC_PACK,
      sha256: '',
      owner_tenant: 'default',
      author: 'a',
      reviewers: [],
      submitted_at: '',
      certified_at: '',
      signature: k.sign(KYC_PACK),
      key_id: 'k1',
      deprecated_at: null,
      replacement: null,
    };
    let release!: () => void;
    let gets = 0;
    const registry = {
      get: async () => {
        gets++;
        if (gets === 1) await new Promise<void>((r) => (release = r));
        return view;
      },
      signingKeys: async () => ({ keys: [k.jwk] }),
    };
    const cache = new TtlLru<ResolvedPack>(10, 60_000);
    const source = new RulePackSource(registry, new PackSignatureVerifier(registry, { ttlMs: 60_000 }), cache, logger);
    const pending = source.registryPack({}, 'kyc-basic', '1.0.0');
    await new Promise((r) => setImmediate(r));
    source.drop({ pack_id: 'kyc-basic', version: '1.0.0' });
    release();
    expect((await pending).packVersion).toBe('1.0.0');
    expect(cache.size).toBe(0);
    await source.registryPack({}, 'kyc-basic', '1.0.0');
    expect(cache.size).toBe(1);
    await source.registryPack({}, 'kyc-basic', '1.0.0');
    expect(gets).toBe(2);
  });
});
