// Printed dates to ISO (yyyy-mm-dd). Numeric dates are ambiguous (03/04/2026 is 4 March in the
// US and 3 April in the UK and the EU), so the document's own conventions decide: dollars or a US
// ZIP code mean month first, anything else day first; a part above 12 settles it either way, and
// a dotted date (03.04.2026) is always day first.

export type DateOrder = 'MDY' | 'DMY';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * US conventions (dollar amounts, a state and ZIP code, sales tax) against European and British
 * ones (VAT, pounds, euros): the stronger evidence decides, day first when there is none. Counted
 * rather than first-found, since OCR misreads a £ as $ or a CO as €O now and then.
 */
export function dateOrderOf(text: string): DateOrder {
  const count = (re: RegExp) => (text.match(re) ?? []).length;
  const us = count(/\$\s?\d/g) + 3 * count(/\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b|\bsales\s+tax\b|\bUSD\b/gi);
  const eu = count(/[£€]\s?\d|\d\s?[£€]/g) + 3 * count(/\bVAT\b|\b(?:EUR|GBP)\b|\bUSt\b/g);
  return us > eu ? 'MDY' : 'DMY';
}

const pad = (n: number) => String(n).padStart(2, '0');

function valid(y: number, m: number, d: number): string | null {
  if (m < 1 || m > 12 || d < 1 || d > 31) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1) return null;
  return `${y}-${pad(m)}-${pad(d)}`;
}

const year4 = (y: number) => (y < 100 ? 2000 + y : y);

/** ISO date of a printed one, or null when it is not a real date. */
export function parseDate(raw: string, order: DateOrder = 'DMY'): string | null {
  const s = raw.trim().replace(/\s+/g, ' ');
  let m = /^(\d{4})[-:.](\d{1,2})[-:.](\d{1,2})$/.exec(s);
  if (m) return valid(+m[1]!, +m[2]!, +m[3]!);
  m = /^(\d{1,2}) ?([./-]) ?(\d{1,2}) ?[./-] ?(\d{2,4})$/.exec(s);
  if (m) {
    const a = +m[1]!;
    const b = +m[3]!;
    const y = year4(+m[4]!);
    const monthFirst = a > 12 ? false : b > 12 ? true : m[2] === '.' ? false : order === 'MDY';
    return monthFirst ? valid(y, a, b) : valid(y, b, a);
  }
  m = /^(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z0][A-Za-z]+)\.?,? (\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[2]!.slice(0, 3).toLowerCase().replace(/^0/, 'o'));
    return month < 0 ? null : valid(+m[3]!, month + 1, +m[1]!);
  }
  m = /^([A-Za-z0][A-Za-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS.indexOf(m[1]!.slice(0, 3).toLowerCase().replace(/^0/, 'o'));
    return month < 0 ? null : valid(+m[3]!, month + 1, +m[2]!);
  }
  return null;
}
