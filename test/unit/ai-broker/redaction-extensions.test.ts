// The redaction module's additions for the AI broker: addresses, tenants' RE2 patterns, the hash,
// remove and tokenize strategies, per-call strategies and counted deep redaction; and the
// labelled PII set's precision and recall per category (the targets).
import { createHash } from 'node:crypto';
import {
  addressDetector,
  createRedactor,
  customPatternDetector,
  CustomPatternError,
  EXTENDED_DETECTORS,
  hash,
  keyedHash,
  redactText,
  STATELESS_STRATEGIES,
  tokenizing,
} from '../../../platform/redaction';
import { evaluate } from '../../fixtures/pii/pii-evaluation';

const redactor = createRedactor({ detectors: EXTENDED_DETECTORS, strategies: STATELESS_STRATEGIES });

describe('addresses', () => {
  test.each([
    '1600 Pennsylvania Avenue NW, Washington, DC 20500',
    '221B Baker St., Apt 4',
    '12 W 34th Street',
    '350 Fifth Avenue, New York, NY 10118',
    'PO Box 1234, Austin, TX 78701',
  ])('%s is one address', (address) => {
    const r = redactor.redactText(`Ship to ${address} today`, { categories: ['address'] });
    expect(r.counts.address).toBe(1);
    expect(r.text).not.toMatch(/\d{2}/);
  });

  test.each([
    'We are 3 of the way there',
    'page 12 drive safely',
    'Order 12345 shipped',
    'Route 66 crosses eight states',
    'the Main Street branch',
  ])('%s is no address', (text) => {
    expect(redactor.redactText(text).counts.address).toBe(0);
  });

  test('stays linear on hostile text', () => {
    const hostile = [`1 ${'Aaaa '.repeat(50_000)}`, '1 A '.repeat(50_000), `${'12 '.repeat(60_000)}Street`];
    for (const text of hostile) {
      const spans: number[] = [];
      addressDetector.find(text, (s) => spans.push(s));
      expect(spans.length).toBeLessThan(text.length);
    }
  });
});

describe('strategies', () => {
  test('hash is SHA-256 of the value, tagged with its category; equal values hash equally', () => {
    const digest = createHash('sha256').update('jane@corp.com').digest('hex');
    expect(redactor.redactText('mail jane@corp.com and jane@corp.com', { strategy: 'hash' }).text).toBe(
      `mail [email:sha256:${digest}] and [email:sha256:${digest}]`,
    );
    expect(hash('jane@corp.com', 'email')).toBe(`[email:sha256:${digest}]`);
  });

  test("a keyed hash differs per key, so a tenant's hashes cannot be matched by hashing every SSN", () => {
    expect(keyedHash('tenant-a-key')('123-45-6789', 'ssn')).not.toBe(keyedHash('tenant-b-key')('123-45-6789', 'ssn'));
    expect(keyedHash('k')('123-45-6789', 'ssn')).not.toBe(hash('123-45-6789', 'ssn'));
  });

  test('remove leaves nothing of the value', () => {
    expect(redactor.redactText('SSN 123-45-6789 ok', { strategy: 'remove' })).toMatchObject({
      text: 'SSN  ok',
      counts: { ssn: 1 },
    });
  });

  test('tokenize asks its minting function, per call', () => {
    const minted: string[] = [];
    const replace = tokenizing((value, category) => {
      minted.push(value);
      return `[${category}:tok_${minted.length}]`;
    });
    expect(redactor.redactText('a@b.io then 555-123-4567', { replace }).text).toBe('[email:tok_1] then [phone:tok_2]');
    expect(minted).toEqual(['a@b.io', '555-123-4567']);
  });

  test('redactValueCounted counts every string of a deep value', () => {
    const r = redactor.redactValueCounted({ a: '123-45-6789', b: ['x@y.io', { c: '12 Main Street' }] });
    expect(r.counts).toMatchObject({ ssn: 1, email: 1, address: 1, phone: 0 });
    expect(JSON.stringify(r.value)).not.toMatch(/6789|x@y|Main/);
  });
});

describe('custom patterns per tenant', () => {
  test('an RE2 pattern adds a category of its own', () => {
    const r = createRedactor({
      detectors: [...EXTENDED_DETECTORS, customPatternDetector({ category: 'employee_id', pattern: 'EMP-\\d{6}' })],
      strategies: STATELESS_STRATEGIES,
    });
    expect(r.redactText('EMP-123456 wrote')).toMatchObject({ text: '***-****** wrote', counts: { employee_id: 1 } });
    expect(redactText('EMP-123456').text).toBe('EMP-123456');
  });

  test('backreferences, lookaround, bad categories and oversized patterns are refused', () => {
    expect(() => customPatternDetector({ category: 'x', pattern: '(a)\\1' })).toThrow(CustomPatternError);
    expect(() => customPatternDetector({ category: 'x', pattern: '(?<=a)b' })).toThrow(CustomPatternError);
    expect(() => customPatternDetector({ category: 'Bad Name', pattern: 'a' })).toThrow(CustomPatternError);
    expect(() => customPatternDetector({ category: 'x', pattern: 'a'.repeat(501) })).toThrow(CustomPatternError);
  });

  test('a catastrophic pattern runs in linear time under RE2', () => {
    const d = customPatternDetector({ category: 'x', pattern: '(a+)+$' });
    let n = 0;
    d.find(`${'a'.repeat(100_000)}!`, () => n++);
    expect(n).toBe(0);
  });
});

describe('the labelled PII set', () => {
  const e = evaluate(EXTENDED_DETECTORS);
  test.each(['ssn', 'card', 'email', 'phone'])('%s recall is at least 0.99', (category) => {
    expect(e.perCategory[category]!.recall).toBeGreaterThanOrEqual(0.99);
  });
  test('address recall is at least 0.9, and overall precision at least 0.97', () => {
    expect(e.perCategory.address!.recall).toBeGreaterThanOrEqual(0.9);
    expect(e.overall.precision).toBeGreaterThanOrEqual(0.97);
  });
});
