// Physical (postal) addresses: US-style street lines ("1600 Pennsylvania Avenue NW, Washington,
// DC 20500", "221B Baker St., Apt 4", "12 W 34th Street"), optionally with unit, city, state and
// ZIP, and post-office boxes. A street line is a house number, one to four capitalised name words
// and a street suffix (Street, Ave, Rd...), so "3 of the way" or "page 12 Drive safely" stay.
// Like the built-ins, the pattern is linear: every repetition is bounded or anchored by a
// lookbehind, and a hostile-text test covers it.
import { regexDetector, type PiiDetector } from './pii-detectors';

const SUFFIXES = [
  'Street', 'St', 'Avenue', 'Ave', 'Av', 'Road', 'Rd', 'Boulevard', 'Blvd', 'Lane', 'Ln', 'Drive', 'Dr', 'Court', 'Ct', 'Way', 'Place', 'Pl',
  'Terrace', 'Ter', 'Circle', 'Cir', 'Parkway', 'Pkwy', 'Highway', 'Hwy', 'Square', 'Sq', 'Trail', 'Trl', 'Plaza', 'Plz', 'Alley', 'Aly', 'Crescent', 'Close', 'Loop',
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

export const ADDRESS = new RegExp(String.raw`(?<![\w-])(?:${STREET}|${PO_BOX})`, 'g');

export const addressDetector: PiiDetector<'address'> = regexDetector('address', ADDRESS);
