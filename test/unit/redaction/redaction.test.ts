// PII redaction: what each built-in category finds (and what it leaves alone), the mask strategy,
// deep redaction of values, and building a redactor with more categories and strategies.
import {
  BUILT_IN_DETECTORS,
  BUILT_IN_STRATEGIES,
  createRedactor,
  luhnValid,
  redactText,
  redactValue,
  regexDetector,
} from '../../../platform/redaction';

const zero = { ssn: 0, card: 0, email: 0, phone: 0 };

describe('ssn', () => {
  test('dashed and spaced SSNs are masked keeping separators', () => {
    expect(redactText('SSN 123-45-6789 on file')).toEqual({
      text: 'SSN ***-**-**** on file',
      counts: { ...zero, ssn: 1 },
    });
    expect(redactText('ssn: 123 45 6789').text).toBe('ssn: *** ** ****');
  });

  test('numbers the SSA never issues, mixed separators and longer digit runs are not SSNs', () => {
    for (const text of [
      '000-12-3456',
      '666-12-3456',
      '912-34-5678',
      '123-00-4567',
      '123-45-0000',
      '123-45 6789',
      '1123-45-6789',
      '123-45-67890',
    ]) {
      expect(redactText(text).counts.ssn).toBe(0);
    }
  });
});

describe('card', () => {
  test('Luhn-valid card numbers, plain or grouped, are masked', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(redactText('card 4111111111111111.').text).toBe('card ****************.');
    expect(redactText('card 4111 1111 1111 1111 exp').text).toBe('card **** **** **** **** exp');
    expect(redactText('amex 3782-822463-10005').text).toBe('amex ****-******-*****');
    expect(redactText('4111 1111 1111 1111').counts.card).toBe(1);
  });

  test('an order number that fails Luhn is not a card', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(redactText('order 4111111111111112 shipped')).toEqual({
      text: 'order 4111111111111112 shipped',
      counts: zero,
    });
  });

  test('a card followed by more digit groups is still found', () => {
    expect(redactText('4111 1111 1111 1111 12 27').text).toBe('**** **** **** **** 12 27');
  });

  test('digit runs longer than a card number are left alone', () => {
    expect(redactText('id 41111111111111110000').counts.card).toBe(0);
  });
});

describe('email', () => {
  test('addresses are masked keeping @ and dots', () => {
    expect(redactText('mail jane.doe+tag@mail.example.co.uk now')).toEqual({
      text: 'mail ****.***+***@****.*******.**.** now',
      counts: { ...zero, email: 1 },
    });
  });

  test('things with an @ that are not addresses stay', () => {
    expect(redactText('@handle and a@b and x@localhost').counts.email).toBe(0);
  });
});

describe('phone', () => {
  test.each([
    ['555-123-4567', '***-***-****'],
    ['(555) 123-4567', '(***) ***-****'],
    ['+1 555 123 4567', '+* *** *** ****'],
    ['555.123.4567', '***.***.****'],
    ['5551234567', '**********'],
  ])('%s -> %s', (phone, masked) => {
    expect(redactText(`call ${phone} today`)).toEqual({ text: `call ${masked} today`, counts: { ...zero, phone: 1 } });
  });

  test('dates, amounts and short numbers are not phones', () => {
    for (const text of ['2024-01-15', '2024-01-15T10:30:00Z', 'total 1,234.56', 'room 12345', 'v1.2.3']) {
      expect(redactText(text)).toEqual({ text, counts: zero });
    }
  });
});

describe('the redactor', () => {
  test('several categories in one text, each counted', () => {
    const { text, counts } = redactText(
      'Jane (123-45-6789, jane@corp.com, 555-123-4567) paid with 4111-1111-1111-1111',
    );
    expect(text).toBe('Jane (***-**-****, ****@****.***, ***-***-****) paid with ****-****-****-****');
    expect(counts).toEqual({ ssn: 1, card: 1, email: 1, phone: 1 });
  });

  test('text without PII comes back unchanged', () => {
    expect(redactText('amount must be positive')).toEqual({ text: 'amount must be positive', counts: zero });
  });

  test('categories restrict what is redacted', () => {
    expect(redactText('123-45-6789 jane@corp.com', { categories: ['email'] }).text).toBe('123-45-6789 ****@****.***');
  });

  test('an unknown strategy is an error, not a silent pass-through', () => {
    expect(() => redactText('jane@corp.com', { strategy: 'nope' })).toThrow(/unknown redaction strategy/);
    expect(() => redactText('jane@corp.com', { strategy: 'toString' })).toThrow(/unknown redaction strategy/);
  });

  test('matching stays linear on hostile text', () => {
    // Inputs that make naive email/phone/card patterns backtrack quadratically or worse.
    const hostile = [
      'a'.repeat(200_000),
      `${'a.'.repeat(100_000)}@`,
      '1 '.repeat(100_000),
      `${'1-'.repeat(100_000)}x`,
      `x@${'a-'.repeat(100_000)}`,
    ];
    for (const text of hostile) expect(redactText(text).text.length).toBe(text.length);
  });
});

describe('redactValue', () => {
  test('redacts every string deep inside, keeps keys and other values, does not modify the input', () => {
    const input = {
      note: 'ssn 123-45-6789',
      n: 5,
      ok: true,
      none: null,
      list: ['a@b.io', { phone: '555-123-4567' }],
      'jane@corp.com': 1,
    };
    const output = redactValue(input);
    expect(output).toEqual({
      note: 'ssn ***-**-****',
      n: 5,
      ok: true,
      none: null,
      list: ['*@*.**', { phone: '***-***-****' }],
      'jane@corp.com': 1,
    });
    expect(input.note).toBe('ssn 123-45-6789');
  });

  test('a __proto__ key stays an ordinary key of the copy', () => {
    const output = redactValue(JSON.parse('{"__proto__":{"x":"555-123-4567"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(['__proto__']);
    expect(JSON.stringify(output)).toBe('{"__proto__":{"x":"***-***-****"}}');
  });
});

describe('extending: another category and strategy without changing the built-ins', () => {
  const employeeIds = regexDetector('employee_id', /\bEMP-\d{6}\b/g);
  const redactor = createRedactor({
    detectors: [...BUILT_IN_DETECTORS, employeeIds],
    strategies: { ...BUILT_IN_STRATEGIES, remove: (_m, category) => `[${category}]` },
  });

  test('a tenant redactor finds its own category and uses its own strategy', () => {
    expect(redactor.redactText('EMP-123456 mailed jane@corp.com', { strategy: 'remove' })).toEqual({
      text: '[employee_id] mailed [email]',
      counts: { ssn: 0, card: 0, email: 1, phone: 0, employee_id: 1 },
    });
  });

  test('the default redactor is unchanged', () => {
    expect(redactText('EMP-123456').text).toBe('EMP-123456');
  });

  test('where spans overlap, the earlier detector wins', () => {
    const r = createRedactor({
      detectors: [regexDetector('ticket', /T-\d{3}-\d{3}-\d{4}/g), ...BUILT_IN_DETECTORS],
      strategies: { mask: () => '#' },
    });
    expect(r.redactText('T-555-123-4567').counts).toEqual({ ticket: 1, ssn: 0, card: 0, email: 0, phone: 0 });
  });
});
