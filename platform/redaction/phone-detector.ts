// Phone numbers worldwide, checked by Google's libphonenumber (google-libphonenumber: its metadata
// knows every country's number plan). Candidates are runs of digit groups ("+44 (0)20 7946 0958",
// "030/12345678", "(617) 555-0134", "06 12 34 56 78"); within a run the longest window of whole
// groups that is a phone wins, so a trailing "12 times" or a leading SSN does not hide one.
// A window is a phone when
//  - it starts with + (or 00): libphonenumber says valid (or, after +, possible);
//  - it is North American (10 digits, or 11 after a 1): formatted 3-3-4 it is a phone by shape;
//    bare, libphonenumber must find it valid for the US (a plausible area and exchange), or a
//    phone word must stand near ("call 5551234567");
//  - otherwise it is a national number: valid in a region the text hints at (US and GB always;
//    others by cue words nearby: "Tel.", "rappeler", "Calle", a +49, a .fr address...), or in
//    one of the common regions when a phone word stands near; "possible" (the fictional 07700
//    900xxx range, say) counts only beside a phone word.
// Never a phone: a window whose closest context word says it is something else (order, tracking,
// account, NPI, case no....), or ten bare digits that are a valid NPI with no phone word near.
// The cost is one to a few libphonenumber parses per digit run of 8+ digits; runs are found by a
// linear pattern and all other text is never looked at twice.
import { PhoneNumberUtil } from 'google-libphonenumber';
import { npiValid } from './checksums';
import { compileContext, contextPolarity } from './context';
import { inIban } from './iban';
import type { PiiDetector } from './pii-detectors';

const util = PhoneNumberUtil.getInstance();

type Verdict = 'valid' | 'possible' | 'no';
function check(number: string, region: string): Verdict {
  try {
    const n = util.parse(number, region);
    if (util.isValidNumber(n)) return 'valid';
    return util.isPossibleNumber(n) ? 'possible' : 'no';
  } catch {
    return 'no';
  }
}

export const PHONE_CONTEXT = compileContext({
  positive: [
    'phone', 'phones', 'telephone', 'tel', 'tel\\.', 'call', 'called', 'calling', 'mobile', 'cell', 'cellphone', 'fax', 'contact', 'reach', 'reached', 'text', 'sms', 'whatsapp', 'ring', 'dial', 'line', 'hotline', 'callback', 'number is',
    'telefon', 'telefonnummer', 'handy', 'rufnummer', 'mobil', 'anrufen', 'rückruf', 'erreichbar', 'téléphone', 'tél', 'tél\\.', 'portable', 'appeler', 'rappeler', 'fixe', 'teléfono', 'móvil', 'llamar', 'llámeme', 'telefono', 'cellulare', 'cell\\.', 'chiamare', 'richiamare', 'richiami', 'telefoon', 'mobiel', 'bellen', 'bel', 'terugbellen', 'gsm',
  ].join('|'),
  negative: [
    'order', 'orders', 'invoice', 'tracking', 'track', 'parcel', 'shipment', 'account', 'acct', 'iban', 'npi', 'provider', 'prescriber', 'mrn', 'policy', 'claim', 'ticket', 'ref', 'reference', 'id', 'isbn', 'serial', 'case', 'docket', 'routing', 'ssn', 'social security', 'zip', 'postcode', 'plz', 'no\\.', 'nr\\.', 'n°', 'n\\.', 'número de seguimiento',
    'aktenzeichen', 'expediente', 'affaire', 'ruolo generale', 'zaaknummer', 'rechnung', 'bestellung', 'commande', 'pedido', 'ordine', 'bestelling', 'sendungsnummer', 'colis', 'seguimiento', 'spedizione', 'zendingnummer', 'versicherungsnummer', 'darlehensnummer', 'personalnummer', 'application', 'loan', 'batch', 'build', 'part', 'room', 'version',
    'rekening', 'rekeningnummer', 'konto', 'kontonummer', 'compte', 'cuenta', 'conto', 'sort code', 'swift', 'bic', 'dob', 'born',
  ].join('|'),
}, 40, 0);

// Cue words per region, looked for around a national number: a region hinted is tried first and
// trusted without a phone word.
const REGION_CUES: readonly (readonly [string, RegExp])[] = [
  ['GB', /\+44|\b(?:uk|u\.k\.|united kingdom|britain|england|scotland|wales|london|manchester|leeds|bristol|glasgow|edinburgh)\b|\.co\.uk\b|£|\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b/i],
  ['DE', /\+49|(?<![\p{L}])(?:tel\.|telefon|handy|rufnummer|erreichbar|unter|bitte|straße|strasse|str\.|deutschland|germany|berlin|münchen|hamburg|köln|frankfurt|und|der|die|das)(?![\p{L}])|\.de\b/iu],
  ['FR', /\+33|(?<![\p{L}])(?:téléphone|tél|portable|rappeler|au|rue|avenue|france|paris|lyon|bordeaux|merci|le|la|les|des|du)(?![\p{L}])|\.fr\b/iu],
  ['NL', /\+31|(?<![\p{L}])(?:bel|telefoon|mobiel|terugbellen|nederland|amsterdam|rotterdam|utrecht|op|het|een|naar)(?![\p{L}])|\.nl\b/iu],
  ['ES', /\+34|(?<![\p{L}])(?:teléfono|móvil|llamar|llámeme|españa|spain|madrid|barcelona|sevilla|valencia|calle|el|al|por|del)(?![\p{L}])|\.es\b/iu],
  ['IT', /\+39|(?<![\p{L}])(?:telefono|cell|cellulare|richiami|richiamare|italia|italy|roma|milano|torino|napoli|firenze|via|il|di|al|della)(?![\p{L}])|\.it\b/iu],
];
const FALLBACK_REGIONS = ['GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'BE', 'CH', 'AT', 'IE', 'AU', 'IN'];

function hintedRegions(text: string, start: number, end: number): string[] {
  const around = text.slice(Math.max(0, start - 120), Math.min(text.length, end + 120));
  const out = ['US', 'GB'];
  for (const [region, cue] of REGION_CUES) if (!out.includes(region) && cue.test(around)) out.push(region);
  return out;
}

// A run of digit groups: optional + or 00, then digits, parentheses and single separators.
const RUN = /(?<![\w+\-./@:#])(?:\+|00)?[\d(][\d ()\-./]{5,26}\d(?![\w@]|[.\-/]\d)/g;
const GROUP = /\(?\d+\)?/g;

interface Group { start: number; end: number; digits: string }

// Dates are digit groups too (2024-01-15, 17.05.2024, 05/17/2024, 20240115): a window that is one
// (or one and an hour: "05/17/2024 14:30") is no phone.
const DATE = /^(?:(?:19|20)\d\d[-./ ]?(?:0[1-9]|1[0-2])[-./ ]?(?:0[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])[-./](?:0?[1-9]|1[0-2])[-./](?:19|20)?\d\d|(?:0?[1-9]|1[0-2])[-./](?:0?[1-9]|[12]\d|3[01])[-./](?:19|20)?\d\d)(?:[ T]\d{1,2})?$/;

const NANP_FORMATTED = /^(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}$/;

function isPhone(text: string, start: number, end: number, digits: string, separated: boolean): boolean {
  const window = text.slice(start, end);
  if (DATE.test(window)) return false;
  const polarity = contextPolarity(text, start, end, PHONE_CONTEXT);
  if (polarity < 0 || inIban(text, start, end)) return false;
  const d = digits.length;
  if (window[0] === '+' || window.startsWith('00')) {
    const verdict = check(window[0] === '+' ? window : `+${window.slice(2)}`, 'ZZ');
    return verdict === 'valid' || (verdict === 'possible' && window[0] === '+');
  }
  if (d === 10 || (d === 11 && digits[0] === '1')) {
    if (d === 10 && !separated && npiValid(digits) && polarity === 0) return false;
    if (NANP_FORMATTED.test(window)) return true;
    if (digits[0] !== '0') {
      const verdict = check(digits, 'US');
      if (verdict === 'valid' || (verdict === 'possible' && polarity > 0 && !separated)) return true;
    }
  }
  if (d < 8 || d > 13) return false;
  const hinted = hintedRegions(text, start, end);
  let possibleInHinted = false;
  for (const region of hinted) {
    if (region === 'US') continue;
    const verdict = check(window, region);
    // A national number in a hinted region: leading 0 (a trunk prefix) or grouped like a phone.
    if (verdict === 'valid' && (digits[0] === '0' || separated || polarity > 0)) return true;
    if (verdict === 'possible') possibleInHinted = true;
  }
  // Possible but not valid (a fictional range such as 07700 900xxx): a national number written
  // as one (trunk 0, grouped, 10-11 digits) or beside a phone word.
  if (possibleInHinted && digits[0] === '0' && (polarity > 0 || (separated && d >= 10 && d <= 11))) return true;
  if (polarity > 0) {
    for (const region of FALLBACK_REGIONS) if (!hinted.includes(region) && check(window, region) === 'valid') return true;
  }
  return false;
}

export const phoneDetector: PiiDetector<'phone'> = {
  category: 'phone',
  find(text, found) {
    const re = new RegExp(RUN);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const run = m[0];
      const plus = run[0] === '+' ? 1 : 0;
      const groups: Group[] = [];
      const g = new RegExp(GROUP);
      for (let x = g.exec(run); x !== null; x = g.exec(run)) groups.push({ start: m.index + x.index, end: m.index + x.index + x[0].length, digits: x[0].replace(/\D/g, '') });
      let total = 0;
      for (const x of groups) total += x.digits.length;
      if (total < 8) continue;
      let i = 0;
      while (i < groups.length) {
        let claimed = -1;
        let digits = '';
        const parts: string[] = [];
        for (let j = i; j < groups.length && digits.length < 15; j++) {
          digits += groups[j]!.digits;
          parts.push(digits);
        }
        // Longest window first.
        for (let j = i + parts.length - 1; j >= i; j--) {
          const ds = parts[j - i]!;
          if (ds.length < 8 || ds.length > 15) continue;
          const start = i === 0 && plus ? m.index : groups[i]!.start;
          if (isPhone(text, start, groups[j]!.end, ds, j > i)) {
            claimed = j;
            found(start, groups[j]!.end);
            break;
          }
        }
        i = claimed >= 0 ? claimed + 1 : i + 1;
      }
    }
  },
};
