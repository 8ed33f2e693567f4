// The kernel's JSON input guard (parseJsonStrict): what it accepts unchanged, what it refuses,
// and the `loc` each refusal names. No timing assertions: the 100,000-level case proves the scan
// is not recursive by finishing at all (a recursive parser would overflow the stack).
import { InputError, PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import { parseJsonStrict, type InputLimits } from '../../../platform/http/json-strict';
import { unsafeTextProblem } from '../../../platform/http/text-guard';

const limits: InputLimits = { maxBytes: 10 * 1024 * 1024, maxDepth: 64, maxStringLength: 1000 };

const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);
const nestedObjects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

function issueOf(text: string | Uint8Array, l: InputLimits = limits) {
  try {
    parseJsonStrict(text, l);
  } catch (err) {
    if (err instanceof InputError) return err.issues[0]!;
    throw err;
  }
  throw new Error('expected the guard to refuse the input');
}

describe('parseJsonStrict accepts', () => {
  it.each([
    ['an object', '{"a":1,"b":[true,false,null],"c":{"d":"e"}}'],
    ['a top-level scalar', '"text"'],
    [
      'numbers JavaScript holds exactly',
      '[0,-0,1.5,-2.25e-3,1e21,1e308,5e-324,9007199254740991,-9007199254740991,0e-400]',
    ],
    ['astral characters raw and as escaped pairs', '{"😀 key":"🚀 ünïcødé 日本語","esc":"\\ud83d\\ude00"}'],
    ['every simple escape', '"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9"'],
    ['a key named constructor with a scalar value', '{"constructor":1,"proto":2}'],
  ])('%s, parsed as JSON.parse would', (_label, text) => {
    expect(parseJsonStrict(text, limits)).toEqual(JSON.parse(text));
  });

  it('valid UTF-8 bytes with astral characters (and drops a BOM)', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"e":"👩‍👩‍👧 €"}', 'utf8')]);
    expect(parseJsonStrict(bytes, limits)).toEqual({ e: '👩‍👩‍👧 €' });
  });

  it('nesting exactly at the limit (64 levels of arrays and of objects)', () => {
    expect(() => parseJsonStrict(nested(64), limits)).not.toThrow();
    expect(() => parseJsonStrict(nestedObjects(64), limits)).not.toThrow();
  });

  it('a string exactly at the length limit, counting escapes as one character', () => {
    expect(parseJsonStrict(JSON.stringify('x'.repeat(1000)), limits)).toHaveLength(1000);
    expect(parseJsonStrict(`"${'\\u0041'.repeat(1000)}"`, limits)).toBe('A'.repeat(1000));
  });
});

describe('parseJsonStrict refuses', () => {
  it('65 levels of nesting, naming the path where the limit was crossed', () => {
    expect(issueOf(nested(65))).toEqual({
      loc: ['body', ...Array(64).fill(0)],
      msg: 'JSON nesting should be at most 64 levels deep',
      type: 'json_too_deep',
    });
    expect(issueOf(nestedObjects(65)).loc).toEqual(['body', ...Array(64).fill('a')]);
  });

  it('100,000 levels of nesting (linear scan, no recursion), and even unbalanced ones', () => {
    expect(issueOf(nested(100_000)).type).toBe('json_too_deep');
    expect(issueOf('['.repeat(100_000)).type).toBe('json_too_deep');
    expect(issueOf('{"a":'.repeat(100_000)).type).toBe('json_too_deep');
  });

  it('a configurable depth', () => {
    expect(issueOf(nested(3), { ...limits, maxDepth: 2 }).loc).toEqual(['body', 0, 0]);
  });

  it('lone surrogates, raw in the decoded text and as escapes, naming the field', () => {
    const event = (value: string) => `{"event_data":{"a":{"b":${value}}}}`;
    for (const bad of [
      '"\\ud800"',
      '"x\\udc00"',
      '"\\ud83d\\u0041"',
      '"\\ud83d"',
      '"\\ude00\\ud83d"',
      '"a\ud800b"',
      '"\udfff"',
      '"\\ud83d\ude00x\ud83d"',
    ]) {
      expect(issueOf(event(bad))).toEqual({
        loc: ['body', 'event_data', 'a', 'b'],
        msg: 'Input should be a valid string: a lone UTF-16 surrogate is not allowed',
        type: 'string_unicode',
      });
    }
  });

  it('a lone surrogate or NUL in a key, naming the key', () => {
    expect(issueOf('{"event_data":{"k\\ud800":1}}')).toMatchObject({
      loc: ['body', 'event_data', 'k\ud800', '[key]'],
      type: 'string_unicode',
    });
    expect(issueOf('{"event_data":{"a\\u0000b":1}}')).toEqual({
      loc: ['body', 'event_data', 'a\u0000b', '[key]'],
      msg: 'Input should be a valid string: NUL (\\u0000) is not allowed',
      type: 'string_unicode',
    });
  });

  it('NUL in a value, escaped or raw, and in array elements', () => {
    expect(issueOf('{"a":"x\\u0000y"}')).toEqual({
      loc: ['body', 'a'],
      msg: 'Input should be a valid string: NUL (\\u0000) is not allowed',
      type: 'string_unicode',
    });
    expect(issueOf('{"a":["ok","x\u0000"]}').loc).toEqual(['body', 'a', 1]);
  });

  it.each([
    ['1e400', '1e400', 'finite_number'],
    ['-1e400', '-1e400', 'finite_number'],
    ['a 401-digit integer', '1' + '0'.repeat(400), 'finite_number'],
    ['a 401-digit decimal', '1' + '0'.repeat(400) + '.5', 'finite_number'],
    ['2^53 + 1', '9007199254740993', 'number_out_of_range'],
    ['-2^53', '-9007199254740992', 'number_out_of_range'],
    ['a 20-digit integer', '12345678901234567890', 'number_out_of_range'],
    ['1e-400', '1e-400', 'number_out_of_range'],
    ['a decimal that underflows to 0', '0.' + '0'.repeat(400) + '1', 'number_out_of_range'],
  ])('the number %s (%s), naming the field', (_label, number, type) => {
    expect(issueOf(`{"event_data":{"n":[1,${number}]}}`)).toMatchObject({ loc: ['body', 'event_data', 'n', 1], type });
  });

  it('strings and keys over the length limit', () => {
    expect(issueOf(`{"a":${JSON.stringify('x'.repeat(1001))}}`)).toEqual({
      loc: ['body', 'a'],
      msg: 'String should have at most 1000 characters',
      type: 'string_too_long',
    });
    expect(issueOf(`{"a":{${JSON.stringify('k'.repeat(1001))}:1}}`).loc).toEqual(['body', 'a', '[key]']);
    expect(issueOf(`"${'\\u0041'.repeat(1001)}"`).loc).toEqual(['body']);
  });

  it('a huge string quickly and without copying it around (default-sized limit, 5 MB body)', () => {
    const huge = `{"s":"${'x'.repeat(5_000_000)}"}`;
    expect(issueOf(huge, { ...limits, maxStringLength: 1_000_000 })).toMatchObject({
      loc: ['body', 's'],
      type: 'string_too_long',
    });
  });

  it('prototype-poisoning keys, plain or escaped', () => {
    expect(issueOf('{"a":{"__proto__":{"admin":true}}}')).toEqual({
      loc: ['body', 'a', '__proto__'],
      msg: 'Forbidden key (prototype poisoning)',
      type: 'value_error',
    });
    expect(issueOf('{"\\u005f_proto__":{}}').loc).toEqual(['body', '__proto__']);
    expect(issueOf('{"constructor":{"prototype":{"admin":true}}}')).toMatchObject({
      loc: ['body', 0],
      type: 'json_invalid',
    });
  });

  it('bytes that are not UTF-8 (including an encoded surrogate)', () => {
    expect(issueOf(Buffer.from([0x22, 0xff, 0x22]))).toEqual({
      loc: ['body', 0],
      msg: 'Invalid UTF-8 in request body',
      type: 'json_invalid',
    });
    expect(issueOf(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])).type).toBe('json_invalid');
  });

  it.each([
    '{"a":',
    '{"a" 1}',
    '[1,]',
    "{'a':1}",
    '"\\x"',
    '"\\u12"',
    '"tab\there"',
    'nul',
    '01',
    '1.',
    '-',
    '{"a":1}}',
    '',
  ])('malformed JSON %j as json_invalid', (text) => {
    expect(issueOf(text)).toEqual({ loc: ['body', 0], msg: 'JSON decode error', type: 'json_invalid' });
  });

  it('a body over maxBytes with PayloadTooLargeError (413)', () => {
    expect(() => parseJsonStrict(Buffer.from('[1,2,3]'), { ...limits, maxBytes: 4 })).toThrow(PayloadTooLargeError);
    expect(() => parseJsonStrict('"ééé"', { ...limits, maxBytes: 6 })).toThrow(PayloadTooLargeError);
  });

  it('names a path through array indices and keys that contain escapes', () => {
    expect(issueOf('{"l\\u00e9":[{},{"x":[0,0,"\\u0000"]}]}').loc).toEqual(['body', 'lé', 1, 'x', 2]);
  });
});

describe('unsafeTextProblem (query, path and form values)', () => {
  it.each([
    ['plain text', 'hello wörld 😀', undefined],
    ['NUL', 'a\u0000b', 'NUL (\\u0000) is not allowed'],
    ['a lone high surrogate', 'a\ud800', 'a lone UTF-16 surrogate is not allowed'],
    ['a lone low surrogate', '\udc00a', 'a lone UTF-16 surrogate is not allowed'],
    ['surrogates in the wrong order', '\ude00\ud83d', 'a lone UTF-16 surrogate is not allowed'],
  ])('%s', (_label, value, problem) => {
    expect(unsafeTextProblem(value)).toBe(problem);
  });
});
