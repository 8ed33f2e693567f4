// The config service's pure rules: the merge (objects merge, lists replace, null removes) with
// provenance, the diff, content addressing and limits, the rollout hash (the same buckets as
// flagd's `fractional`), and secret references (allowed roots, traversal refused).
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { FlagSet } from '../../../platform/flags/flag-set';
import { InputError } from '../../../platform/errors/domain-errors';
import { assertDepth, canonicalText, diff, sha256Hex } from '../../../subgraphs/config/bundle.rules';
import { mergeLayers } from '../../../subgraphs/config/merge.rules';
import { inRollout } from '../../../subgraphs/config/rollout.rules';
import { checkReferences, parseReference } from '../../../subgraphs/config/secret-reference';

describe('merge rules', () => {
  it('merges objects, replaces lists and scalars, removes on null, and credits each key to its last writer', () => {
    const merged = mergeLayers([
      { content: { a: { x: 1, y: [1, 2], z: { deep: true } }, gone: 1, keep: 'p' }, source: 'platform' },
      { content: { a: { y: [3], z: null }, gone: null }, source: 'suite' },
      { content: { a: { x: 2, w: 'new' }, keep: { now: 'object' } }, source: 'tenant' },
    ]);
    expect(merged.value).toEqual({ a: { x: 2, y: [3], w: 'new' }, keep: { now: 'object' } });
    expect(Object.fromEntries(merged.setBy)).toEqual({
      '/a/x': 'tenant',
      '/a/y': 'suite',
      '/a/w': 'tenant',
      '/keep/now': 'tenant',
    });
  });

  it('never aliases a layer’s lists into the result', () => {
    const list = [1, 2];
    const merged = mergeLayers([{ content: { l: list }, source: 1 }]);
    (merged.value.l as number[]).push(3);
    expect(list).toEqual([1, 2]);
  });

  it('escapes pointers as RFC 6901 says', () => {
    const merged = mergeLayers([{ content: { 'a/b': { 'c~d': 1 } }, source: 's' }]);
    expect([...merged.setBy.keys()]).toEqual(['/a~1b/c~0d']);
  });
});

describe('bundles', () => {
  it('hashes the RFC 8785 canonical JSON', () => {
    const content = { b: 1, a: [true, null, 'x'], c: { z: 1.5, y: 'é' } };
    expect(sha256Hex(canonicalText(content, []))).toBe(
      createHash('sha256').update(canonicalize(content)!).digest('hex'),
    );
    expect(sha256Hex(canonicalText({ c: { y: 'é', z: 1.5 }, a: [true, null, 'x'], b: 1 }, []))).toBe(
      sha256Hex(canonicalText(content, [])),
    );
  });

  it('refuses deep nesting without recursion (10,000 levels), and oversize content', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => assertDepth(deep, ['content'])).toThrow(InputError);
    expect(() => canonicalText({ s: 'x'.repeat(300 * 1024) }, ['content'])).toThrow(/bytes/);
  });

  it('diffs two versions as RFC 6902 operations', () => {
    expect(diff({ a: 1, b: { c: [1] }, d: 1 }, { a: 1, b: { c: [2] }, e: 2 })).toEqual([
      { op: 'remove', path: '/d' },
      { op: 'replace', path: '/b/c', value: [2] },
      { op: 'add', path: '/e', value: 2 },
    ]);
    expect(diff({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe('rollout hashing', () => {
  it('puts a target in a rollout exactly when flagd’s fractional gives it the first bucket', () => {
    const flags = new FlagSet({
      flags: {
        k: {
          state: 'ENABLED',
          variants: { new: 'new', old: 'old' },
          defaultVariant: 'old',
          targeting: {
            fractional: [
              ['new', 10],
              ['old', 90],
            ],
          },
        },
      },
    });
    for (let i = 0; i < 500; i++) {
      const key = `tenant-${i}`;
      const viaFlagd = (flags.evaluate('k', { targetingKey: key }) as { value: string }).value;
      expect({ key, inRollout: inRollout('k', key, 10) }).toEqual({ key, inRollout: viaFlagd === 'new' });
    }
  });

  it('only adds targets as the percentage grows, and splits near the percentage', () => {
    const keys = Array.from({ length: 5000 }, (_, i) => `t${i}`);
    const at = (pct: number) => new Set(keys.filter((k) => inRollout('ns', k, pct)));
    const ten = at(10);
    const fifty = at(50);
    for (const k of ten) expect(fifty.has(k)).toBe(true);
    expect(ten.size).toBeGreaterThan(400);
    expect(ten.size).toBeLessThan(600);
    expect(at(100).size).toBe(5000);
  });
});

describe('secret references', () => {
  const rules = { envPrefixes: ['CONFIG_SECRET_'], fileRoots: ['/run/secrets'] };

  it('accepts references inside the allowed roots and prefixes', () => {
    expect(parseReference('secret://env/CONFIG_SECRET_DB', rules)).toEqual({ kind: 'env', name: 'CONFIG_SECRET_DB' });
    expect(parseReference('secret://file/run/secrets/db', rules)).toEqual({ kind: 'file', path: '/run/secrets/db' });
  });

  it.each([
    'secret://file/../../etc/shadow',
    'secret://file/run/secrets/../../etc/shadow',
    'secret://file/run/secrets',
    'secret://file/run/secretsx/db',
    'secret://file/run/secrets/%2e%2e/x',
    'secret://file/run/secrets/./db',
    'secret://env/HOME',
    'secret://env/config_secret_db',
    'secret://vault/kv/db',
  ])('refuses %s', (ref) => {
    expect(typeof parseReference(ref, rules)).toBe('string');
    expect(() => checkReferences({ a: { b: ref } }, rules, ['content'])).toThrow(InputError);
  });
});
