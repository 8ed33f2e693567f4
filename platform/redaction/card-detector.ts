// Payment card numbers. Digit groups joined by single spaces or dashes; within such a run, the
// longest window of whole groups holding 13-19 digits that passes Luhn is a candidate ("4111 1111
// 1111 1111 12/27" finds the card before the expiry). A candidate is a card when
//  - it does not sit inside an IBAN (mod-97 valid: "DE89 3704 0044 0532 0130 00"),
//  - it is not an ISBN-13 (978/979, a range no card network issues),
//  - the closest context word is not a tracking, order, ticket or account word (a parcel or an
//    e-ticket number passes Luhn one time in ten), and
//  - its issuer prefix and length are a card network's (Visa 4, Mastercard 51-55/2221-2720, Amex
//    34/37, Discover/UnionPay 6, JCB 35, Diners 36/38/39/300-305, Maestro 50/56-58): a 13-digit
//    ticket starting 0 or 1 is none. A card word nearby ("card", "Visa", "Karte") waives this.
import { luhnValid } from './checksums';
import { compileContext, contextPolarity } from './context';
import { inIban } from './iban';
import type { PiiDetector } from './pii-detectors';

const isIsbn13 = (digits: string) => digits.length === 13 && (digits.startsWith('978') || digits.startsWith('979'));

/** Whether the issuer prefix and the length belong to a card network. */
export function cardNetworkShape(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p4 = Number(d.slice(0, 4));
  switch (d[0]) {
    case '4':
      return n === 13 || n === 16 || n === 19;
    case '5':
      return (p2 >= 51 && p2 <= 55 && n === 16) || ((p2 === 50 || (p2 >= 56 && p2 <= 58)) && n >= 13);
    case '2':
      return p4 >= 2221 && p4 <= 2720 && n === 16;
    case '3':
      if (p2 === 34 || p2 === 37) return n === 15;
      if (p4 >= 3528 && p4 <= 3589) return n >= 16;
      return (p2 === 36 || p2 === 38 || p2 === 39 || (p4 >= 3000 && p4 <= 3059)) && n >= 14;
    case '6':
      return n >= 16 || (n >= 13 && (p2 === 63 || p2 === 67));
    default:
      return false;
  }
}

export const CARD_CONTEXT = compileContext(
  {
    positive: String.raw`cards?|credit|debit|visa|mastercard|master card|amex|american express|discover|jcb|diners|maestro|cc|pan|karte|kreditkarte|carte|tarjeta|carta|pas|paid with|pay with|charged to|ending in|card number|cvv|exp`,
    negative: String.raw`tracking|track|parcel|package|shipment|shipping|delivery|ups|usps|fedex|dhl|sendungsnummer|sendung|paket|colis|suivi|seguimiento|envío|spedizione|zending|zendingnummer|order|orders|bestellung|commande|pedido|ordine|bestelling|invoice|rechnung|facture|factura|fattura|ticket|e-ticket|booking|confirmation|reference|ref|claim|policy|account|konto|iban|imei|serial|isbn|reservation|case|docket`,
  },
  40,
  0,
);

const DIGIT_RUN = /(?<![\w])\d+(?:[ -]\d+)*(?![\w])/g;

export const cardDetector: PiiDetector<'card'> = {
  category: 'card',
  find(text, found) {
    const re = new RegExp(DIGIT_RUN);
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const run = m[0];
      if (run.length < 13) continue;
      const groups: { start: number; end: number; digits: string }[] = [];
      const group = /\d+/g;
      for (let g = group.exec(run); g !== null; g = group.exec(run))
        groups.push({ start: g.index, end: g.index + g[0].length, digits: g[0] });
      let i = 0;
      while (i < groups.length) {
        let claimed = -1;
        let digits = '';
        let candidate = '';
        for (let j = i; j < groups.length && digits.length <= 19; j++) {
          digits += groups[j]!.digits;
          if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !isIsbn13(digits)) {
            claimed = j;
            candidate = digits;
          }
        }
        if (claimed < 0) {
          i++;
          continue;
        }
        const start = m.index + groups[i]!.start;
        const end = m.index + groups[claimed]!.end;
        const polarity = contextPolarity(text, start, end, CARD_CONTEXT);
        if (polarity >= 0 && !inIban(text, start, end) && (polarity > 0 || cardNetworkShape(candidate))) {
          found(start, end);
          i = claimed + 1;
        } else i++;
      }
    }
  },
};
