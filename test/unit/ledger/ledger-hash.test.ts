import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import {
  canonicalEventData,
  chainHash,
  contentHash,
  contentJson,
  GENESIS_HASH,
} from '../../../subgraphs/ledger/ledger.hash';
import { formatMicros, parseMicros } from '../../../subgraphs/ledger/ledger.time';

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('content hash', () => {
  const cases: [string, string, Record<string, unknown>, string | null][] = [
    ['t1', 'rag_query', { query: 'q', results_count: 3, confidence: 0.87, hierarchy_levels: ['a', 'b'] }, 'alice'],
    ['tenant "quoted"', 'type\\with\\backslash', { ü: 'ö', 日本: [1, { b: 2, a: 1 }], e: 1e21, f: 0.1 + 0.2 }, null],
    ['t', 'x', {}, 'user\u2028sep\u0007bell'],
    // eslint-disable-next-line no-loss-of-precision -- a number past 2^53 is the case under test
    ['emoji 🚀', 'e', { '\ud83d\ude00': true, '\u0000': null, big: 12345678901234567890 }, ''],
  ];

  it.each(cases)(
    "the fast content JSON equals canonicalize() of the spec's object (%s)",
    (tenant, type, data, user) => {
      const createdAt = '2026-11-22T04:05:06.123456+00:00';
      const expected = canonicalize({
        tenant_id: tenant,
        event_type: type,
        event_data: data,
        user_id: user,
        created_at: createdAt,
      })!;
      const fast = contentJson({
        tenantId: tenant,
        eventType: type,
        eventDataCanonical: canonicalEventData(data),
        userId: user,
        createdAt,
      });
      expect(fast).toBe(expected);
      expect(
        contentHash({
          tenantId: tenant,
          eventType: type,
          eventDataCanonical: canonicalEventData(data),
          userId: user,
          createdAt,
        }),
      ).toBe(sha(expected));
    },
  );

  it('writes non-ASCII characters as themselves and sorts keys by UTF-16 code units', () => {
    expect(canonicalEventData({ b: 'é', a: '日本', B: 1, '\u20ac': 2, '\ud83d\ude00': 3 })).toBe(
      '{"B":1,"a":"日本","b":"é","€":2,"😀":3}',
    ); // U+20AC sorts before the surrogate pair D83D DE00
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalEventData({ n: Infinity })).toThrow();
    expect(() => canonicalEventData({ n: NaN })).toThrow();
  });

  it('chains as SHA-256 of content_hash followed by previous_hash, from 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0'.repeat(64));
    const c = sha('x');
    expect(chainHash(c, GENESIS_HASH)).toBe(sha(c + '0'.repeat(64)));
  });
});

describe('created_at text', () => {
  it('has six fractional digits and +00:00, and round-trips', () => {
    const us = Date.UTC(2026, 10, 22, 4, 5, 6, 123) * 1000 + 456;
    expect(formatMicros(us)).toBe('2026-11-22T04:05:06.123456+00:00');
    expect(parseMicros(formatMicros(us))).toBe(us);
    expect(formatMicros(Date.UTC(2026, 0, 1) * 1000 + 7)).toBe('2026-01-01T00:00:00.000007+00:00');
    expect(parseMicros('2026-11-22T04:05:06.123Z')).toBeUndefined();
  });

  it('orders lexically like the instants it names', () => {
    const base = Date.UTC(2026, 10, 22) * 1000;
    const texts = [base + 999, base + 1000, base + 1001, base + 1_000_000].map(formatMicros);
    expect([...texts].sort()).toEqual(texts);
  });
});
