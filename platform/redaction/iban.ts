// IBANs in text. They are not redacted as a category of their own (an account number is not what
// the issue asks to keep from vendors, and the outside set counts them as decoys), but a digit run
// inside one is neither a card nor a phone: "DE89 3704 0044 0532 0130 00" holds card- and
// phone-shaped groups.
import { ibanValid } from './checksums';

// Candidate IBANs: a country code, check digits and groups; confirmed by mod-97 before they count.
// Written so no input makes it backtrack: either one unspaced run, or groups of exactly four.
const IBAN = /(?<![\w])[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)(?![\w])/g;

/** Whether [start, end) lies in a valid IBAN: looked for around the span only (an IBAN is at most 42 characters). */
export function inIban(text: string, start: number, end: number): boolean {
  const from = Math.max(0, start - 44);
  const around = text.slice(from, end + 44);
  const re = new RegExp(IBAN);
  for (let m = re.exec(around); m !== null; m = re.exec(around)) {
    if (from + m.index < end && start < from + m.index + m[0].length && ibanValid(m[0])) return true;
  }
  return false;
}
