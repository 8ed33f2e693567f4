// US social security numbers. Dashed or spaced (123-45-6789, 123 45 6789) they are SSNs by shape;
// nine bare digits are an SSN only when a context word says so ("SSN 123456789", "social
// security no. 123456789") and no closer word says otherwise (routing, account, order...).
// Either way numbers the SSA never issues (area 000, 666, 9xx; group 00; serial 0000) are not SSNs.
import { ssnValid } from './checksums';
import { compileContext, contextPolarity } from './context';
import type { PiiDetector } from './pii-detectors';

const SHAPED = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-])/g;
const BARE = /(?<![\w-])\d{9}(?![\w-])/g;

export const SSN_CONTEXT = compileContext(
  {
    positive: String.raw`ssn|ss#|ssn#|ss no\.?|social security(?: (?:no\.?|number|#))?|social sec\.?|soc\.? sec\.?|social|sozialversicherungsnummer|taxpayer id|tin`,
    negative: String.raw`routing|aba|account|acct|order|invoice|id|ident|student|employee|member|policy|claim|case|ticket|tracking|phone|tel|fax|mrn|npi|ein|zip|isbn|ref|reference|application|docket`,
  },
  40,
  0,
);

export const ssnDetector: PiiDetector<'ssn'> = {
  category: 'ssn',
  find(text, found) {
    const shaped = new RegExp(SHAPED);
    const bare = new RegExp(BARE);
    // Two sorted streams merged so spans come left to right, as a detector promises.
    const spans: [number, number][] = [];
    for (let m = shaped.exec(text); m !== null; m = shaped.exec(text)) {
      if (ssnValid(m[1]! + m[3]! + m[4]!)) spans.push([m.index, m.index + m[0].length]);
    }
    const own = spans.length;
    for (let m = bare.exec(text); m !== null; m = bare.exec(text)) {
      if (ssnValid(m[0]) && contextPolarity(text, m.index, m.index + 9, SSN_CONTEXT) > 0)
        spans.push([m.index, m.index + 9]);
    }
    if (spans.length > own && own > 0) spans.sort((a, b) => a[0] - b[0]);
    for (const [s, e] of spans) found(s, e);
  },
};
