// What counts as PII, one detector per category. A detector reports [start, end) spans of a text;
// the redactor decides what replaces them. Built-in detectors use our own regular expressions,
// each written so matching stays linear in the text (fixed widths, or a run anchored by a
// lookbehind so it is scanned once): redaction runs over whatever text a service holds. Patterns
// that tenants supply later must come in through a re2js-backed detector, never a native RegExp.

export interface PiiDetector<C extends string = string> {
  readonly category: C;
  /** Calls `found` for every span of `text` this detector claims, left to right. */
  find(text: string, found: (start: number, end: number) => void): void;
}

/** A detector from a global regular expression, with an optional check of each match. */
export function regexDetector<C extends string>(category: C, pattern: RegExp, accept?: (match: string) => boolean): PiiDetector<C> {
  if (!pattern.global) throw new Error(`detector ${category}: the pattern must be global`);
  return {
    category,
    find(text, found) {
      const re = new RegExp(pattern); // own lastIndex: detectors are shared
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        if (!accept || accept(m[0])) found(m.index, m.index + m[0].length);
      }
    },
  };
}

// US social security numbers, dashed or spaced; numbers the SSA never issues (area 000, 666,
// 900-999, group 00, serial 0000) are not SSNs.
const SSN = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-])/g;
export const ssnDetector = regexDetector('ssn', SSN, (m) => {
  const [area, group, serial] = [m.slice(0, 3), m.slice(4, 6), m.slice(7)];
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
});

/** The Luhn checksum every payment card number satisfies (and 90% of other numbers do not). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Digit groups joined by single spaces or dashes; within such a run, the longest window of whole
// groups holding 13-19 digits that passes Luhn is a card ("4111 1111 1111 1111 12/27" finds the
// card before the expiry). A run of digits with no separator is a card only when it is 13-19
// digits long and passes Luhn, so long order or account numbers stay as they are.
// ISBN-13s are 13 digits starting 978 or 979, a range no card network issues; one in ten passes
// Luhn by chance, so they are told apart by that prefix.
const isIsbn13 = (digits: string) => digits.length === 13 && (digits.startsWith('978') || digits.startsWith('979'));

const DIGIT_RUN = /(?<![\w])\d+(?:[ -]\d+)*(?![\w])/g;
export const cardDetector: PiiDetector<'card'> = {
  category: 'card',
  find(text, found) {
    const re = new RegExp(DIGIT_RUN);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const run = m[0];
      const groups: { start: number; end: number; digits: string }[] = [];
      const group = /\d+/g;
      for (let g = group.exec(run); g !== null; g = group.exec(run)) groups.push({ start: g.index, end: g.index + g[0].length, digits: g[0] });
      let i = 0;
      while (i < groups.length) {
        let claimed = -1;
        let digits = '';
        for (let j = i; j < groups.length && digits.length <= 19; j++) {
          digits += groups[j]!.digits;
          if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !isIsbn13(digits)) claimed = j;
        }
        if (claimed < 0) {
          i++;
          continue;
        }
        found(m.index + groups[i]!.start, m.index + groups[claimed]!.end);
        i = claimed + 1;
      }
    }
  },
};

// The local part is a run anchored by the lookbehind (scanned once, not from every position);
// the domain is dot-separated labels ending in an alphabetic top-level label.
const EMAIL = /(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
export const emailDetector = regexDetector('email', EMAIL, (m) => /\.[A-Za-z]{2,}$/.test(m));

// North American numbers with optional country code: 555-123-4567, (555) 123-4567, +1 555 123
// 4567, 555.123.4567, 5551234567; international +CC followed by 10 digits in groups. Not after
// a word and a dash ("INV-555-123-4567" is an invoice number).
const PHONE = /(?<![\w+-])(?:\+\d{1,3}[ .-]?|1[ .-])?(?:\(\d{3}\)[ .-]?|\d{3}[ .-]?)\d{3}[ .-]?\d{4}(?![\w])/g;
// Other international numbers (E.164: +, 8-15 digits) in groups of 1-4 digits: +44 20 7946 0958.
const INTERNATIONAL_PHONE = /(?<![\w+])\+\d{1,3}(?:[ .-]\d{1,4}){2,5}(?![\w])/g;
const northAmerican = regexDetector('phone', PHONE);
const international = regexDetector('phone', INTERNATIONAL_PHONE, (m) => {
  const digits = m.replace(/\D/g, '').length;
  return digits >= 8 && digits <= 15;
});
export const phoneDetector: PiiDetector<'phone'> = {
  category: 'phone',
  // Both patterns' spans, left to right as a detector promises; a North American match wins an overlap.
  find(text, found) {
    const spans: [number, number][] = [];
    northAmerican.find(text, (s, e) => spans.push([s, e]));
    const own = spans.length;
    international.find(text, (s, e) => {
      for (let i = 0; i < own; i++) if (s < spans[i]![1] && spans[i]![0] < e) return;
      spans.push([s, e]);
    });
    if (spans.length > own) spans.sort((a, b) => a[0] - b[0]);
    for (const [s, e] of spans) found(s, e);
  },
};
