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
//    others by cue words nearby, tried first: "Tel.", "rappeler", "Calle", a +49, a .fr address...), or in
//    one of the common regions when a phone word stands near; "possible" (the fictional 07700
//    900xxx range, say) counts only beside a phone word.
// Never a phone: a window whose closest context word says it is something else (order, tracking,
// account, NPI, case no....), or ten bare digits that are a valid NPI with no phone word near.
// The cost is one to a few libphonenumber parses per digit run of 8+ digits; runs are found by a
// linear pattern and all other text is never looked at twice.
import { npiValid } from './checksums';
import { compileContext, contextPolarity, LETTER } from './context';
import { inIban } from './iban';
import { phoneVerdict } from './phone-numbers';
export { clearPhoneVerdicts } from './phone-numbers';
import type { PiiDetector } from './pii-detectors';

const check = phoneVerdict;

export const PHONE_CONTEXT = compileContext(
  {
    positive: [
      'phone',
      'phones',
      'telephone',
      'tel',
      'tel\\.',
      'call',
      'called',
      'calling',
      'mobile',
      'cell',
      'cellphone',
      'fax',
      'contact',
      'reach',
      'reached',
      'text',
      'sms',
      'whatsapp',
      'ring',
      'dial',
      'line',
      'hotline',
      'callback',
      'number is',
      'telefon',
      'telefonnummer',
      'handy',
      'rufnummer',
      'mobil',
      'anrufen',
      'rückruf',
      'erreichbar',
      'téléphone',
      'tél',
      'tél\\.',
      'portable',
      'appeler',
      'rappeler',
      'fixe',
      'teléfono',
      'móvil',
      'llamar',
      'llámeme',
      'telefono',
      'cellulare',
      'cell\\.',
      'chiamare',
      'richiamare',
      'richiami',
      'telefoon',
      'mobiel',
      'bellen',
      'bel',
      'terugbellen',
      'gsm',
    ].join('|'),
    negative: [
      'order',
      'orders',
      'invoice',
      'tracking',
      'track',
      'parcel',
      'shipment',
      'account',
      'acct',
      'iban',
      'npi',
      'provider',
      'prescriber',
      'mrn',
      'policy',
      'claim',
      'ticket',
      'ref',
      'reference',
      'id',
      'isbn',
      'serial',
      'case',
      'docket',
      'routing',
      'ssn',
      'social security',
      'zip',
      'postcode',
      'plz',
      'no\\.',
      'nr\\.',
      'n°',
      'n\\.',
      'número de seguimiento',
      'aktenzeichen',
      'expediente',
      'affaire',
      'ruolo generale',
      'zaaknummer',
      'rechnung',
      'bestellung',
      'commande',
      'pedido',
      'ordine',
      'bestelling',
      'sendungsnummer',
      'colis',
      'seguimiento',
      'spedizione',
      'zendingnummer',
      'versicherungsnummer',
      'darlehensnummer',
      'personalnummer',
      'application',
      'loan',
      'batch',
      'build',
      'part',
      'room',
      'version',
      'rekening',
      'rekeningnummer',
      'konto',
      'kontonummer',
      'compte',
      'cuenta',
      'conto',
      'sort code',
      'swift',
      'bic',
      'dob',
      'born',
    ].join('|'),
  },
  40,
  0,
);

// Cue words per region, looked for (once per digit run) around a national number: a region hinted
// is tried first and trusted without a phone word. Matched on the lower-cased window.
const REGION_WORDS: Readonly<Record<string, string>> = {
  GB: 'uk|u\\.k\\.|united kingdom|britain|england|scotland|wales|london|manchester|leeds|bristol|glasgow|edinburgh',
  DE: 'tel\\.|telefon|handy|rufnummer|erreichbar|unter|bitte|straße|strasse|str\\.|deutschland|germany|berlin|münchen|hamburg|köln|frankfurt|und|der|die|das',
  FR: 'téléphone|tél|portable|rappeler|au|rue|avenue|france|paris|lyon|bordeaux|merci|le|la|les|des|du',
  NL: 'bel|telefoon|mobiel|terugbellen|nederland|amsterdam|rotterdam|utrecht|op|het|een|naar',
  ES: 'teléfono|móvil|llamar|llámeme|españa|spain|madrid|barcelona|sevilla|valencia|calle|el|al|por|del',
  IT: 'telefono|cell|cellulare|richiami|richiamare|italia|italy|roma|milano|torino|napoli|firenze|via|il|di|al|della',
};
// One pass over the window: every cue word, each mapped to the regions it hints at.
const CUE_REGIONS = new Map<string, string[]>();
for (const [region, words] of Object.entries(REGION_WORDS)) {
  for (const w of words.split('|')) {
    const word = w.replace(/\\/g, '');
    CUE_REGIONS.set(word, [...(CUE_REGIONS.get(word) ?? []), region]);
  }
}
const CUES = new RegExp(
  `(?<![${LETTER}])(?:${[...new Set(Object.values(REGION_WORDS).flatMap((w) => w.split('|')))].sort((x, y) => y.length - x.length).join('|')})(?![${LETTER}])|\\+\\d\\d|\\.[a-z]{2}\\b|£`,
  'g',
);
const COUNTRY_CODE: Readonly<Record<string, string>> = {
  '+44': 'GB',
  '+49': 'DE',
  '+33': 'FR',
  '+31': 'NL',
  '+34': 'ES',
  '+39': 'IT',
};
const TLD: Readonly<Record<string, string>> = { uk: 'GB', de: 'DE', fr: 'FR', nl: 'NL', es: 'ES', it: 'IT' };
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b/;
const FALLBACK_REGIONS = ['GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'BE', 'CH', 'AT', 'IE', 'AU', 'IN'];

function hintedRegions(text: string, start: number, end: number): string[] {
  const around = text.slice(Math.max(0, start - 100), Math.min(text.length, end + 60));
  // US first and GB last, unless cued: the cued regions are tried before the English default.
  const out = ['US'];
  const add = (r: string | undefined) => r !== undefined && !out.includes(r) && out.push(r);
  const cues = new RegExp(CUES);
  for (const m of around.toLowerCase().matchAll(cues)) {
    const cue = m[0];
    if (cue === '£') add('GB');
    else if (cue[0] === '+') add(COUNTRY_CODE[cue]);
    else if (cue[0] === '.' && cue.length === 3) add(TLD[cue.slice(1)]);
    else for (const r of CUE_REGIONS.get(cue) ?? []) add(r);
  }
  if (UK_POSTCODE.test(around)) add('GB');
  add('GB');
  return out;
}

/**
 * Whether a national number's digits could be one in the region at all (its first digit and
 * length): libphonenumber is asked only then. GB, DE, FR, NL, BE, CH, AT, IE and AU numbers
 * start with the trunk 0; Italy's mobiles with 3; Spain's with 6-9 and no trunk.
 */
function nationalShape(region: string, digits: string): boolean {
  const d = digits.length;
  switch (region) {
    case 'GB':
      return digits[0] === '0' && d >= 10 && d <= 11;
    case 'DE':
    case 'AT':
      return digits[0] === '0' && d >= 8 && d <= 13;
    case 'FR':
    case 'NL':
    case 'CH':
    case 'AU':
      return digits[0] === '0' && d === 10;
    case 'BE':
    case 'IE':
      return digits[0] === '0' && d >= 9 && d <= 10;
    case 'IT':
      return (digits[0] === '0' && d >= 8 && d <= 11) || (digits[0] === '3' && d >= 9 && d <= 10);
    case 'ES':
      return d === 9 && digits[0]! >= '6' && digits[0]! <= '9';
    case 'IN':
      return d === 10 && digits[0]! >= '6';
    default:
      return true;
  }
}

// A run of digit groups: optional + or 00, then digits, parentheses and single separators.
const RUN = /(?<![\w+\-./@:#])(?:\+|00)?[\d(][\d ()\-./]{5,26}\d(?![\w@]|[.\-/]\d)/g;
const GROUP = /\(?\d+\)?/g;

interface Group {
  start: number;
  end: number;
  digits: string;
}

// Dates are digit groups too (2024-01-15, 17.05.2024, 05/17/2024, 20240115): a window that is one
// (or one and an hour: "05/17/2024 14:30") is no phone.
const DATE =
  /^(?:(?:19|20)\d\d[-./ ]?(?:0[1-9]|1[0-2])[-./ ]?(?:0[1-9]|[12]\d|3[01])|(?:0?[1-9]|[12]\d|3[01])[-./](?:0?[1-9]|1[0-2])[-./](?:19|20)?\d\d|(?:0?[1-9]|1[0-2])[-./](?:0?[1-9]|[12]\d|3[01])[-./](?:19|20)?\d\d)(?:[ T]\d{1,2})?$/;

const NANP_FORMATTED = /^(?:\+?1[ .-]?)?(?:\(\d{3}\) ?|\d{3}[ .-])\d{3}[ .-]\d{4}$/;

/** What is computed once per digit run, lazily: the regions its surroundings hint at. */
class Run {
  private hinted?: string[];
  constructor(
    readonly text: string,
    readonly start: number,
    readonly end: number,
  ) {}
  regions(): string[] {
    return (this.hinted ??= hintedRegions(this.text, this.start, this.end));
  }
}

function isPhone(
  run: Run,
  start: number,
  end: number,
  digits: string,
  separated: boolean,
  context: () => -1 | 0 | 1,
): boolean {
  const text = run.text;
  const window = text.slice(start, end);
  // A date, or one digit over and over ("0 0 0 0 0 0 0 0", "1111111111"), is no phone.
  if (DATE.test(window) || /^(\d)\1*$/.test(digits)) return false;
  const polarity = context();
  if (polarity < 0) return false;
  const d = digits.length;
  // North American shapes first, "+1 (305) 555-0134" included: no libphonenumber call needed.
  if ((d === 10 || (d === 11 && digits[0] === '1')) && NANP_FORMATTED.test(window)) {
    return !(d === 10 && !separated && npiValid(digits) && polarity === 0) && !inIban(text, start, end);
  }
  if (window[0] === '+' || window.startsWith('00')) {
    if (inIban(text, start, end)) return false;
    const verdict = check(window[0] === '+' ? window : `+${window.slice(2)}`, 'ZZ');
    return verdict === 'valid' || (verdict === 'possible' && window[0] === '+');
  }
  if (d === 10 || (d === 11 && digits[0] === '1')) {
    if (d === 10 && !separated && npiValid(digits) && polarity === 0) return false;
    if (digits[0] !== '0' && digits[0] !== '1') {
      const verdict = check(digits, 'US');
      if (verdict === 'valid' || (verdict === 'possible' && polarity > 0 && !separated))
        return !inIban(text, start, end);
    }
  }
  if (d < 8 || d > 13 || !FALLBACK_REGIONS.some((r) => nationalShape(r, digits))) return false;
  const hinted = run.regions();
  let possibleInHinted = false;
  let accepted = false;
  for (const region of hinted) {
    if (region === 'US' || !nationalShape(region, digits)) continue;
    const verdict = check(window, region);
    // A national number in a hinted region: leading 0 (a trunk prefix) or grouped like a phone.
    if (verdict === 'valid' && (digits[0] === '0' || separated || polarity > 0)) {
      accepted = true;
      break;
    }
    if (verdict === 'possible') possibleInHinted = true;
  }
  // Possible but not valid (a fictional range such as 07700 900xxx): a national number written
  // as one (trunk 0, grouped, 10-11 digits) or beside a phone word.
  if (!accepted && possibleInHinted && digits[0] === '0' && (polarity > 0 || (separated && d >= 10 && d <= 11)))
    accepted = true;
  if (!accepted && polarity > 0) {
    for (const region of FALLBACK_REGIONS) {
      if (!hinted.includes(region) && nationalShape(region, digits) && check(window, region) === 'valid') {
        accepted = true;
        break;
      }
    }
  }
  return accepted && !inIban(text, start, end);
}

/** At most this many windows of one run go to isPhone: a long run of groups costs a bounded amount. */
const MAX_WINDOWS = 16;

export const phoneDetector: PiiDetector<'phone'> = {
  category: 'phone',
  find(text, found) {
    const re = new RegExp(RUN);
    const g = new RegExp(GROUP);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const runText = m[0];
      const plus = runText[0] === '+' ? 1 : 0;
      const groups: Group[] = [];
      let total = 0;
      g.lastIndex = 0;
      for (let x = g.exec(runText); x !== null; x = g.exec(runText)) {
        let digits = x[0];
        if (digits[0] === '(') digits = digits.replace(/\D/g, '');
        else if (digits[digits.length - 1] === ')') digits = digits.slice(0, -1);
        groups.push({ start: m.index + x.index, end: m.index + x.index + x[0].length, digits });
        total += digits.length;
      }
      if (total < 8) continue;
      const run = new Run(text, m.index, m.index + runText.length);
      let budget = MAX_WINDOWS;
      let i = 0;
      while (i < groups.length && budget > 0) {
        const start = i === 0 && plus ? m.index : groups[i]!.start;
        let polarity: -1 | 0 | 1 | undefined;
        const context = () => (polarity ??= contextPolarity(text, start, start, PHONE_CONTEXT));
        const prefixes: string[] = [];
        let digits = '';
        for (let j = i; j < groups.length && digits.length < 15; j++) prefixes.push((digits += groups[j]!.digits));
        let claimed = -1;
        // Longest window first.
        for (let j = i + prefixes.length - 1; j >= i && budget > 0; j--) {
          const ds = prefixes[j - i]!;
          if (ds.length < 8 || ds.length > 15) continue;
          budget--;
          if (isPhone(run, start, groups[j]!.end, ds, j > i, context)) {
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
