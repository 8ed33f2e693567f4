// The one cursor format: round trips, and every kind of garbage a client can send back is an
// InputError naming the caller's argument (never a value that reaches a query, never a crash).
import { InputError } from '../../../platform/errors/domain-errors';
import {
  decodeSeqCursor,
  decodeTextCursor,
  encodeCursor,
  MAX_CURSOR_LENGTH,
  seqCursor,
  textCursor,
} from '../../../platform/pagination/cursor';

const raw = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/** The same bytes with one of the unused low bits of the last character set. */
function nonCanonical(cursor: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(cursor.at(-1)!);
  const variant = cursor.slice(0, -1) + alphabet[last | 1];
  expect(variant).not.toBe(cursor);
  expect(Buffer.from(variant, 'base64url')).toEqual(Buffer.from(cursor, 'base64url'));
  return variant;
}

function rejection(decode: () => unknown): InputError {
  try {
    decode();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('decoded garbage without complaint');
}

describe('encodeCursor / decode*Cursor', () => {
  it('round-trips text positions, including non-ASCII and astral characters', () => {
    for (const name of ['alice', 'a', 'user.name-1_x', 'zoë', '用户', 'emoji-😀', ':colon:', 'x'.repeat(300)]) {
      const cursor = encodeCursor('u', name);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeTextCursor(cursor, 'u', 'after')).toBe(name);
    }
  });

  it('round-trips sequence positions from 0 to Number.MAX_SAFE_INTEGER', () => {
    for (const seq of [0, 1, 42, 1_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(decodeSeqCursor(encodeCursor('seq', seq), 'seq', 'after')).toBe(seq);
    }
  });

  it('codecs keep the kind in one place', () => {
    const users = textCursor('u');
    const seqs = seqCursor('seq');
    expect(users.decode(users.encode('bob'), 'after')).toBe('bob');
    expect(seqs.decode(seqs.encode(7), 'after')).toBe(7);
    expect(users.encode('bob')).toBe(encodeCursor('u', 'bob'));
    // The format other services' clients already hold: base64url of `<kind>:<value>`.
    expect(users.encode('bob')).toBe(raw('u:bob'));
    expect(seqs.encode(7)).toBe(raw('seq:7'));
  });

  it('errors name the domain argument, as a value_error', () => {
    const err = rejection(() => decodeTextCursor('!!!', 'u', 'after'));
    expect(err.issues).toEqual([{ loc: ['after'], msg: 'Invalid cursor', type: 'value_error' }]);
    expect(rejection(() => decodeSeqCursor('!!!', 'seq', 'before')).issues[0]!.loc).toEqual(['before']);
  });

  const text = (cursor: string) => () => decodeTextCursor(cursor, 'u', 'after');
  const seq = (cursor: string) => () => decodeSeqCursor(cursor, 'seq', 'after');

  it.each([
    ['empty', ''],
    ['characters outside base64url', 'dTp@YWxpY2U'],
    ['standard base64 alphabet (+ and /)', '+/+/'],
    ['padding', `${raw('u:ab')}=`],
    ['whitespace', ` ${raw('u:alice')}`],
    ['a dangling character (length 4n+1)', `${raw('u:abc!')}A`],
    ['non-canonical trailing bits', nonCanonical(raw('u:ab'))],
  ])('refuses what is not canonical base64url: %s', (_, cursor) => {
    rejection(text(cursor));
  });

  it('refuses another kind, no kind, or an empty value', () => {
    rejection(text(raw('seq:5')));
    rejection(seq(raw('u:alice')));
    rejection(text(raw('alice')));
    rejection(text(raw('U:alice')));
    rejection(text(raw('uu:alice')));
    rejection(text(raw('u:')));
    rejection(text(raw('u')));
    rejection(seq(raw('seq:')));
  });

  it('refuses NUL, lone surrogates, a BOM before the kind and invalid UTF-8', () => {
    rejection(text('dToA')); // "u:\0": the cursor that once reached PostgreSQL (22021, a 500)
    rejection(text(raw('u:a\u0000b')));
    rejection(text(raw(Buffer.from([0x75, 0x3a, 0xed, 0xa0, 0x80])))); // UTF-8-encoded lone surrogate U+D800
    rejection(text(raw(Buffer.from([0x75, 0x3a, 0xed, 0xb0, 0x80])))); // lone U+DC00
    rejection(text(raw(Buffer.from([0x75, 0x3a, 0xff, 0x61])))); // 0xFF is never UTF-8
    rejection(text(raw(Buffer.from([0x75, 0x3a, 0xc3])))); // truncated sequence
    rejection(text(raw(Buffer.from([0x75, 0x3a, 0xc0, 0xaf])))); // overlong '/'
    rejection(text(raw('\uFEFFu:alice')));
  });

  it.each([
    ['negative', '-1'],
    ['signed', '+1'],
    ['fractional', '1.5'],
    ['exponent', '1e3'],
    ['hex', '0x10'],
    ['leading zero', '007'],
    ['whitespace', ' 1'],
    ['trailing junk', '1abc'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['beyond MAX_SAFE_INTEGER', String(Number.MAX_SAFE_INTEGER + 1)],
    ['huge', '9'.repeat(400)],
    ['non-ASCII digits', '١٢٣'],
  ])('refuses a sequence that is not a non-negative safe integer: %s', (_, value) => {
    rejection(seq(raw(`seq:${value}`)));
  });

  it(`refuses input longer than ${MAX_CURSOR_LENGTH} characters before decoding it`, () => {
    const long = raw(`u:${'a'.repeat(2000)}`);
    expect(long.length).toBeGreaterThan(MAX_CURSOR_LENGTH);
    rejection(text(long));
    rejection(text('A'.repeat(100_000)));
  });

  it('refuses values that are not strings at all', () => {
    rejection(() => decodeTextCursor(42 as unknown as string, 'u', 'after'));
    rejection(() => decodeSeqCursor(null as unknown as string, 'seq', 'after'));
  });

  it('will not encode what it could not decode (a programming error, not input)', () => {
    expect(() => encodeCursor('u', '')).toThrow();
    expect(() => encodeCursor('u', 'a\u0000')).toThrow();
    expect(() => encodeCursor('u', '\uD800')).toThrow();
    expect(() => encodeCursor('seq', -1)).toThrow();
    expect(() => encodeCursor('seq', 1.5)).toThrow();
    expect(() => encodeCursor('seq', Number.MAX_SAFE_INTEGER + 1)).toThrow();
    expect(() => encodeCursor('Bad:kind', 'x')).toThrow();
    expect(() => encodeCursor('u', 'x'.repeat(MAX_CURSOR_LENGTH))).toThrow();
    expect(() => encodeCursor('u', 'x')).not.toThrow(InputError);
  });
});
