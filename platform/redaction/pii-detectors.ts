// What counts as PII, one detector per category. A detector reports [start, end) spans of a text;
// the redactor decides what replaces them. The built-ins (issue 23) are recognisers in Presidio's
// manner: a linear pattern finds candidates, then checksums (Luhn, IBAN mod-97, NPI, the SSA's
// rules), context words and, for phones, Google's libphonenumber decide. Each lives in its own
// file (ssn-, card-, email-, phone-, address-detector.ts) and serves every caller: the AI broker
// and validation's masking (the rule engine) use these same detectors. Patterns that tenants
// supply must come in through a re2js-backed detector, never a native RegExp.

export interface PiiDetector<C extends string = string> {
  readonly category: C;
  /** Calls `found` for every span of `text` this detector claims, left to right. */
  find(text: string, found: (start: number, end: number) => void): void;
}

/** A detector from a global regular expression, with an optional check of each match. */
export function regexDetector<C extends string>(
  category: C,
  pattern: RegExp,
  accept?: (match: string) => boolean,
): PiiDetector<C> {
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

export { luhnValid, ibanValid, npiValid, ssnValid } from './checksums';
export { ssnDetector } from './ssn-detector';
export { cardDetector, cardNetworkShape } from './card-detector';
export { emailDetector } from './email-detector';
export { phoneDetector, clearPhoneVerdicts } from './phone-detector';
