// parseRecords: JSON, CSV and XML payloads into records, and what each refuses.
import { InputFormatError, parseRecords } from '../../../platform/rule-engine';
import { passes } from './pack-builders';

function refusal(run: () => unknown): InputFormatError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(InputFormatError);
    return err as InputFormatError;
  }
  throw new Error('accepted');
}

describe('json', () => {
  test('an object is one record, an array of objects one record each', () => {
    expect(parseRecords({ a: 1 }, 'json')).toEqual([{ a: 1 }]);
    expect(parseRecords([{ a: 1 }, { a: 2 }], 'json')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseRecords([], 'json')).toEqual([]);
  });

  test('anything else is refused, naming the element', () => {
    expect(refusal(() => parseRecords('{"a":1}', 'json')).path).toEqual([]);
    expect(refusal(() => parseRecords(null, 'json')).path).toEqual([]);
    expect(refusal(() => parseRecords([{ a: 1 }, 5], 'json')).path).toEqual([1]);
    expect(refusal(() => parseRecords([{ a: 1 }, [{}]], 'json')).path).toEqual([1]);
  });

  test('maxRecords', () => {
    expect(parseRecords([{}, {}], 'json', { maxRecords: 2 })).toHaveLength(2);
    expect(refusal(() => parseRecords([{}, {}, {}], 'json', { maxRecords: 2 })).message).toMatch(/at most 2/);
  });
});

describe('csv', () => {
  test('a header row, then one record of strings per row', () => {
    expect(parseRecords('id,amount\nA1,10\nA2,20.5\n', 'csv')).toEqual([
      { id: 'A1', amount: '10' },
      { id: 'A2', amount: '20.5' },
    ]);
  });

  test('quotes, CRLF, a BOM, blank lines and padding outside quotes are handled', () => {
    const text = '\uFEFFname,note\r\n"Doe, Jane"," said ""hi"" "\r\n\r\n  Bob , x \r\n';
    expect(parseRecords(text, 'csv')).toEqual([
      { name: 'Doe, Jane', note: ' said "hi" ' },
      { name: 'Bob', note: 'x' },
    ]);
  });

  test('numeric text in CSV is compared as a number by the rules', () => {
    const [record] = parseRecords('amount\n1500\n', 'csv');
    expect(passes({ field: 'amount', operator: 'range', min: 1000, max: 2000 }, record)).toBe(true);
    expect(passes({ field: 'amount', operator: '>', value: 999 }, record)).toBe(true);
  });

  test('a ragged row is refused naming the row (0-based, as failures count rows)', () => {
    const short = refusal(() => parseRecords('a,b\n1,2\n3\n4,5\n', 'csv'));
    expect(short.path).toEqual([1]);
    expect(short.message).toMatch(/row 1 \(line 3\)/);
    expect(refusal(() => parseRecords('a,b\n1,2,3\n', 'csv')).path).toEqual([0]);
  });

  test('a header with an empty, repeated or __proto__ name is refused', () => {
    expect(refusal(() => parseRecords('a,,c\n1,2,3\n', 'csv')).path).toEqual(['header', 1]);
    expect(refusal(() => parseRecords('a,b,a\n1,2,3\n', 'csv')).path).toEqual(['header', 2]);
    expect(refusal(() => parseRecords('__proto__,b\n1,2\n', 'csv')).path).toEqual(['header', 0]);
  });

  test('an unclosed quote and a non-string payload are refused', () => {
    expect(refusal(() => parseRecords('a,b\n1,"2\n', 'csv')).message).toMatch(/Quote Not Closed/);
    expect(refusal(() => parseRecords({ a: 1 }, 'csv')).path).toEqual([]);
  });

  test('maxRecords', () => {
    expect(parseRecords('a\n1\n2\n', 'csv', { maxRecords: 2 })).toHaveLength(2);
    expect(refusal(() => parseRecords('a\n1\n2\n3\n', 'csv', { maxRecords: 2 })).message).toMatch(/more than 2/);
  });
});

describe('xml', () => {
  test('the repeated child elements of the root are the records', () => {
    const xml =
      '<?xml version="1.0"?><orders><order id="1"><amount>10</amount></order><order id="2"><amount>7</amount><note/></order></orders>';
    expect(parseRecords(xml, 'xml')).toEqual([
      { '@id': '1', amount: '10' },
      { '@id': '2', amount: '7', note: '' },
    ]);
  });

  test('otherwise the root itself is the record', () => {
    expect(parseRecords('<order><id>A1</id><customer><zip>01234</zip></customer></order>', 'xml')).toEqual([
      { id: 'A1', customer: { zip: '01234' } },
    ]);
  });

  test('recordElement names the records explicitly (a list of one)', () => {
    expect(parseRecords('<orders><order><id>1</id></order></orders>', 'xml', { recordElement: 'order' })).toEqual([
      { id: '1' },
    ]);
    expect(parseRecords('<orders><other/></orders>', 'xml', { recordElement: 'order' })).toEqual([]);
  });

  test('text stays text (leading zeros kept); predefined entities and character references decode', () => {
    const [record] = parseRecords(
      '<r><zip>01234</zip><name>A &amp; B &lt;x&gt; &#65;&#x42;</name></r>',
      'xml',
    ) as Record<string, unknown>[];
    expect(record).toEqual({ zip: '01234', name: 'A & B <x> AB' });
  });

  test('DOCTYPE and ENTITY declarations are refused before parsing (no entity expansion)', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
    expect(refusal(() => parseRecords(laughs, 'xml')).message).toMatch(/DOCTYPE/);
    const external = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>';
    expect(refusal(() => parseRecords(external, 'xml')).message).toMatch(/DOCTYPE/);
    expect(refusal(() => parseRecords('<r><!ENTITY x "y"></r>', 'xml')).message).toMatch(/ENTITY/);
    expect(refusal(() => parseRecords('<!doctype html><r/>', 'xml')).message).toMatch(/DOCTYPE/);
  });

  test('malformed XML is refused naming the line', () => {
    const err = refusal(() => parseRecords('<r>\n<a>1</b>\n</r>', 'xml'));
    expect(err.path).toEqual(['line', 2]);
  });

  test('nesting deeper than maxXmlDepth is refused', () => {
    const deep = `${'<a>'.repeat(30)}x${'</a>'.repeat(30)}`;
    expect(() => parseRecords(deep, 'xml', { maxXmlDepth: 40 })).not.toThrow();
    expect(refusal(() => parseRecords(deep, 'xml', { maxXmlDepth: 20 })).message).toMatch(/nested/i);
  });

  test('a non-string payload and an unknown format are refused', () => {
    expect(refusal(() => parseRecords({ r: 1 }, 'xml')).path).toEqual([]);
    expect(refusal(() => parseRecords('{}', 'yaml' as never)).message).toMatch(/unknown input format/);
  });

  test('maxRecords', () => {
    expect(refusal(() => parseRecords('<l><i/><i/><i/></l>', 'xml', { maxRecords: 2 })).message).toMatch(/at most 2/);
  });
});
