// The PII detectors as they were before issue 23 (regex-only: no context, libphonenumber, IBAN or
// NPI checks, US addresses only), kept for one purpose: `npm run bench -- redaction` prints their
// figures beside the current detectors' in the same run. Nothing else may use them.
import { regexDetector, type PiiDetector } from '../platform/redaction';

// US social security numbers, dashed or spaced; numbers the SSA never issues (area 000, 666,
// 900-999, group 00, serial 0000) are not SSNs.
const SSN = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-])/g;
const ssnDetector = regexDetector('ssn', SSN, (m) => {
  const [area, group, serial] = [m.slice(0, 3), m.slice(4, 6), m.slice(7)];
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
});

/** The Luhn checksum every payment card number satisfies (and 90% of other numbers do not). */
function luhnValid(digits: string): boolean {
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
const cardDetector: PiiDetector<'card'> = {
  category: 'card',
  find(text, found) {
    const re = new RegExp(DIGIT_RUN);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const run = m[0];
      const groups: { start: number; end: number; digits: string }[] = [];
      const group = /\d+/g;
      for (let g = group.exec(run); g !== null; g = group.exec(run))
        groups.push({ start: g.index, end: g.index + g[0].length, digits: g[0] });
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
const emailDetector = regexDetector('email', EMAIL, (m) => /\.[A-Za-z]{2,}$/.test(m));

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
const phoneDetector: PiiDetector<'phone'> = {
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

const SUFFIXES = [
  'Street',
  'St',
  'Avenue',
  'Ave',
  'Av',
  'Road',
  'Rd',
  'Boulevard',
  'Blvd',
  'Lane',
  'Ln',
  'Drive',
  'Dr',
  'Court',
  'Ct',
  'Way',
  'Place',
  'Pl',
  'Terrace',
  'Ter',
  'Circle',
  'Cir',
  'Parkway',
  'Pkwy',
  'Highway',
  'Hwy',
  'Square',
  'Sq',
  'Trail',
  'Trl',
  'Plaza',
  'Plz',
  'Alley',
  'Aly',
  'Crescent',
  'Close',
  'Loop',
];
// Title case and upper case only: a lower-case "way" or "drive" is a word, not a street.
const SUFFIX = [...SUFFIXES, ...SUFFIXES.map((s) => s.toUpperCase())].sort((a, b) => b.length - a.length).join('|');
const NUMBER = String.raw`\d{1,6}[A-Za-z]?(?:-\d{1,4})?`;
const DIRECTION = String.raw`(?:[NSEW]{1,2}\.?|North|South|East|West)`;
const NAME_WORD = String.raw`(?:[A-Z][A-Za-z'.-]{0,30}|\d{1,3}(?:st|nd|rd|th))`;
const UNIT = String.raw`(?:,?[ \t]+(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|#)\.?[ \t]*#?[A-Za-z0-9-]{1,8})`;
const CITY_STATE_ZIP = String.raw`(?:,[ \t]*[A-Z][A-Za-z.'-]{1,30}(?:[ \t]+[A-Z][A-Za-z.'-]{1,30}){0,3}(?:,[ \t]*[A-Z]{2})?(?:[ \t]+\d{5}(?:-\d{4})?)?)?`;
const STREET = String.raw`${NUMBER}[ \t]+(?:${DIRECTION}[ \t]+)?(?:${NAME_WORD}[ \t]+){1,4}(?:${SUFFIX})\.?(?:[ \t]+${DIRECTION}(?![\w]))?(?![\w])${UNIT}?${CITY_STATE_ZIP}`;
const PO_BOX = String.raw`P\.?[ \t]?O\.?[ \t]+Box[ \t]+\d{1,8}${CITY_STATE_ZIP}`;

const ADDRESS = new RegExp(String.raw`(?<![\w-])(?:${STREET}|${PO_BOX})`, 'g');

const addressDetector: PiiDetector<'address'> = regexDetector('address', ADDRESS);

/** The old broker set (email, ssn, card, phone, address), in its priority order. */
export const LEGACY_EXTENDED_DETECTORS: readonly PiiDetector[] = [
  emailDetector,
  ssnDetector,
  cardDetector,
  phoneDetector,
  addressDetector,
];
