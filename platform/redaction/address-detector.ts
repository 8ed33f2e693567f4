// Physical (postal) addresses in the US, UK, Germany, France, the Netherlands, Spain and Italy
// (issue 23), each with what usually follows it (unit, city, state, postcode):
//  - number first (US, UK, FR): "1600 Pennsylvania Avenue NW, Washington, DC 20500", "Flat 3, 42
//    Acacia Avenue, Manchester M1 4BT", "12 bis rue de la Paix, 75002 Paris";
//  - street first (DE, NL, ES, IT): "Hauptstraße 12, 10115 Berlin", "Keizersgracht 123, 1015 CJ
//    Amsterdam", "Calle de Alcalá 45, 28014 Madrid", "Via Roma 15, 00184 Roma (RM)", recognised
//    by the street word (…straße, …weg, …gracht, Calle, Via, Corso…);
//  - any capitalised name and number followed by a postcode and a city ("Damrak 1, 1012 LG
//    Amsterdam"): the postcode is the street word.
//  - post-office boxes.
// A street needs its street word and a house number, so "3 of the way", "Route 66" or "the Main
// Street branch" stay. Every repetition is bounded and no two alternatives overlap much, so
// matching stays linear (a hostile-text test covers it).
import type { PiiDetector } from './pii-detectors';

const UP = 'A-ZÀ-ÖØ-Þ';
const LOW = 'a-zß-öø-ÿ';
/** A capitalised word: "Baker", "Champs-Élysées", "O'Connell", "St." */
const CAP = `[${UP}][${UP}${LOW}'’.-]{0,30}`;
/** Lower-case particles inside names ("rue de la Paix", "Via dei Mille"), longest first, whole words. */
const particles = (...words: string[]) => `(?:${[...words].sort((a, b) => b.length - a.length).join('|')})(?![${LOW}])`;

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
  'Gardens',
  'Mews',
  'Row',
  'Hill',
  'Green',
  'Walk',
  'Grove',
  'Rise',
  'Parade',
  'Wharf',
  'Gate',
  'Park',
  'Vale',
  'View',
  'Yard',
  'Embankment',
];
// Title case and upper case only: a lower-case "way" or "drive" is a word, not a street.
const SUFFIX = [...SUFFIXES, ...SUFFIXES.map((s) => s.toUpperCase())].sort((a, b) => b.length - a.length).join('|');
const NUMBER = String.raw`\d{1,5}[A-Za-z]?(?:-\d{1,4})?`;
const DIRECTION = String.raw`(?:[NSEW]{1,2}\.?|North|South|East|West)`;
const NAME_WORD = String.raw`(?:[A-Z][A-Za-z'.-]{0,30}|\d{1,3}(?:st|nd|rd|th))`;
const UNIT = String.raw`(?:,?[ \t]+(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Room|Rm|#)\.?[ \t]*#?[A-Za-z0-9-]{1,8})`;
const UNIT_FIRST = String.raw`(?:(?:Flat|Apartment|Apt\.?|Unit|Suite)[ \t]+[A-Za-z0-9-]{1,5},?[ \t]+)`;

// What follows a street: a European postcode and city, a UK postcode, or a US city, state and ZIP.
const CITY = `${CAP}(?:[ \\t-](?:${particles('am', 'an', 'der', 'sur', 'en', 'de', 'del', 'la', 'le')}|${CAP})){0,3}`;
const EU_POSTCODE = String.raw`(?:[DFIE]-|NL-)?(?:\d{5}|\d{4}[ \t]?[A-Z]{2})`;
const UK_POSTCODE = String.raw`[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}`;
const EU_TAIL = String.raw`,?[ \t]+${EU_POSTCODE}[ \t]+${CITY}(?:[ \t]+\([A-Z]{2}\))?`;
const UK_TAIL = String.raw`,[ \t]*(?:${CITY},?[ \t]+)?${UK_POSTCODE}(?![\w])`;
const US_TAIL = String.raw`,[ \t]*[A-Z][A-Za-z.'-]{1,30}(?:[ \t]+[A-Z][A-Za-z.'-]{1,30}){0,3}(?:,[ \t]*[A-Z]{2})?(?:[ \t]+\d{5}(?:-\d{4})?)?`;
const TAIL = `(?:${UK_TAIL}|${EU_TAIL}|${US_TAIL})?`;

const US_STREET = String.raw`(?:${DIRECTION}[ \t]+)?(?:${NAME_WORD}[ \t]+){1,4}(?:${SUFFIX})\.?(?:[ \t]+${DIRECTION}(?![\w]))?(?![\w])${UNIT}?`;
const FR_TYPE = [
  'rue',
  'avenue',
  'av\\.',
  'boulevard',
  'bd',
  'place',
  'allée',
  'chemin',
  'impasse',
  'quai',
  'cours',
  'route',
  'square',
  'passage',
  'voie',
  'villa',
  'cité',
  'sentier',
  'faubourg',
  'parvis',
  'promenade',
]
  .flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1)])
  .join('|');
const FR_STREET = `(?:${FR_TYPE})(?:[ \\t]+(?:${particles('de', 'du', 'des', 'la', 'le', 'les', 'sur', 'en', 'et', 'au', 'aux')}|(?:d'|l'|d’|l’)?${CAP})){1,6}`;
const NUMBER_FIRST = String.raw`${UNIT_FIRST}?${NUMBER}(?:[ \t]+(?:bis|ter))?,?[ \t]+(?:${US_STREET}|${FR_STREET})${TAIL}`;

const DE_NL_SUFFIX = [
  'straße',
  'strasse',
  'str\\.',
  'weg',
  'allee',
  'platz',
  'gasse',
  'ring',
  'damm',
  'ufer',
  'markt',
  'chaussee',
  'steig',
  'pfad',
  'promenade',
  'graben',
  'kamp',
  'straat',
  'laan',
  'plein',
  'gracht',
  'kade',
  'singel',
  'dijk',
  'steeg',
  'dreef',
  'burgwal',
  'haven',
].join('|');
// The street word ends the name: the whole word is taken, then its ending checked (a lookbehind),
// instead of trying every split of the word against every ending.
const DE_NL_SUFFIX_END = `(?:${DE_NL_SUFFIX})`;
const DE_NL_STREET = `(?:(?:Am|An der|An den|Auf der|Auf dem|Im|In der|Zum|Zur|Unter den|Alte|Alter|Lange|Korte|Oude|Nieuwe)[ \\t]+)?[${UP}][${LOW}-]{1,30}\\.?(?![${LOW}-])(?<=${DE_NL_SUFFIX_END})|(?:Am|An der|Auf dem|Im|In der|Zum|Zur|Unter den)[ \\t]+${CAP}|${CAP}[ \\t]+(?:Straße|Str\\.|Weg|Allee|Platz|Ring|Damm|Markt)`;
const ES_IT_TYPE = [
  'Calle',
  'C/',
  'Avenida',
  'Avda\\.',
  'Av\\.',
  'Paseo',
  'Pº',
  'Plaza',
  'Pza\\.',
  'Carrer',
  'Camino',
  'Ronda',
  'Travesía',
  'Glorieta',
  'Rambla',
  'Passeig',
  'Plaça',
  'Carretera',
  'Ctra\\.',
  'Via',
  'Viale',
  'Corso',
  'Piazza',
  'Piazzale',
  'Largo',
  'Vicolo',
  'Lungotevere',
  'Strada',
  'Contrada',
  'Borgo',
  'Galleria',
  'Vico',
  'Salita',
  'Lungomare',
].join('|');
const ES_IT_STREET = `(?:${ES_IT_TYPE})(?:[ \\t]+(?:${particles('de', 'del', 'la', 'las', 'los', 'el', 'y', 'i', 'dei', 'della', 'delle', 'degli', 'di', 'da')}|(?:d'|l'|d’)?${CAP})){1,6}`;
const STREET_FIRST = String.raw`(?:${DE_NL_STREET}|${ES_IT_STREET}),?[ \t]+${NUMBER}(?:[ \t]*(?:bis|[a-z]))?(?:,[ \t]*\d{1,2}º(?:[ \t]?[A-Z])?)?${TAIL}`;

// Any capitalised name and number when a postcode and city follow.
const NAME_NUMBER_POSTCODE = String.raw`${CAP}(?:[ \t]+(?:${particles('den', 'der', 'van', 'de')}|${CAP})){0,3}[ \t]+${NUMBER},?${EU_TAIL}`;
const PO_BOX = String.raw`P\.?[ \t]?O\.?[ \t]+Box[ \t]+\d{1,8}(?:${US_TAIL})?`;

const LEAD = `(?<![\\w${UP}${LOW}-])`;
/** One pattern for all (the whole alternation); kept for callers that want a single RegExp. */
export const ADDRESS = new RegExp(`${LEAD}(?:${NUMBER_FIRST}|${STREET_FIRST}|${NAME_NUMBER_POSTCODE}|${PO_BOX})`, 'g');
// The detector runs the four shapes as separate patterns: V8 compiles each small one to machine
// code, while the single large alternation ran several times slower. Overlaps are settled as the
// alternation would, leftmost first, then longest.
const SHAPES = [NUMBER_FIRST, STREET_FIRST, NAME_NUMBER_POSTCODE, PO_BOX].map(
  (shape) => new RegExp(`${LEAD}(?:${shape})`, 'g'),
);

export const addressDetector: PiiDetector<'address'> = {
  category: 'address',
  find(text, found) {
    const spans: [number, number][] = [];
    // The shared expressions, not copies: a copy of one of these costs ~10 us (more than the
    // scan of a prompt), and nothing runs between the exec calls below, so no other scan can
    // move lastIndex meanwhile (exec leaves it at 0 when it finds nothing more).
    for (const re of SHAPES) {
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        let end = m.index + m[0].length;
        // A full stop after a long word ends the sentence, not an abbreviation ("St.", "Blvd."): not part of the address.
        if (m[0].endsWith('.') && /[^\s.]{5,}\.$/.test(m[0])) end--;
        spans.push([m.index, end]);
      }
    }
    spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    let last = -1;
    for (const [start, end] of spans) {
      if (start < last) continue;
      found(start, end);
      last = end;
    }
  },
};
