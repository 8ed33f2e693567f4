// Key fields of common business documents from OCR text: invoice number, dates, totals, vendor
// and customer, addresses, each with a confidence. Rule-based (labels and value shapes); a
// field's confidence is the page's OCR confidence scaled by how strongly the rule matched (a
// labelled value beats a bare pattern), so a doubtful scan gives doubtful fields.
//
// OCR reads a two-column header row as one line ("Acme Ltd INVOICE", "Bill To: Due Date: ..."),
// so labels are searched anywhere in a line and a value stops at the next label.
import type { ExtractedField, ExtractedFields } from './ocr.types';
import { dateOrderOf, parseDate, type DateOrder } from './dates';

// [0O]ct: OCR often reads the O of Oct as a zero.
const MONTH = String.raw`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|[O0]ct|Nov|Dec)[a-z]*\.?`;
/** Every common printed date: ISO, numeric with / . - (day or month first), and month names either way round. */
// ISO dates accept ':' or '.' for '-' (a common misread of a hyphen).
export const DATE = String.raw`(\d{4}[-:.]\d{1,2}[-:.]\d{1,2}|\d{1,2}\s?[./-]\s?\d{1,2}\s?[./-]\s?\d{2,4}|\d{1,2}(?:st|nd|rd|th)?\s+${MONTH},?\s+\d{4}|${MONTH}\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})`;
/** 1,234.56 / 1.234,56 / 1 234,56 / 1234.56, with an optional currency symbol or code either side. */
const AMOUNT = String.raw`((?:[$€£]|USD|EUR|GBP)?\s?-?\d{1,3}(?:[,.\s']\d{3})*[.,]\d{2}(?!\d)|(?:[$€£]|USD|EUR|GBP)?\s?-?\d+[.,]\d{2}(?!\d))`;
const CURRENCY = /\b(USD|EUR|GBP|CHF|JPY|CAD|AUD)\b|([$€£])/;
const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };

/** Words that start another labelled value on the same OCR line. */
const NEXT_LABEL =
  /\s+(?:invoice|inv\b|date|due|payment|terms|account|order|po\b|ref|reference|tel|phone|fax|email|vat|ship\s+to|page)\b.*$/i;
/** Legal-form suffixes that mark a company name. */
const COMPANY =
  /\b(?:Ltd|Limited|Inc|Incorporated|LLC|LLP|PLC|plc|Corp|Corporation|Co|Company|GmbH|AG|KG|SARL|SAS|SA|S\.?r\.?l|S\.?p\.?A|B\.?V|N\.?V|AB|Oy|A\/S|Pty)\b\.?/;
/** Document titles that share the vendor's line in a two-column header. */
const TITLE =
  /\b(?:tax\s+invoice|invoice|purchase\s+order|statement(?:\s+of\s+account)?|credit\s+note|receipt|quotation|quote|bill)\b.*$/i;

const field = (
  value: string,
  confidence: number,
  strength: number,
  extra: Partial<ExtractedField> = {},
): ExtractedField => ({
  value: value.trim(),
  confidence: Math.round(confidence * strength * 1000) / 1000,
  ...extra,
});

function labelled(lines: string[], label: RegExp, value: string, from = 0): { value: string; line: number } | null {
  const re = new RegExp(label.source + String.raw`\s*[:#.]?\s*` + value, 'i');
  for (let i = from; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m?.[1]) return { value: m[1], line: i };
  }
  return null;
}

/** An amount as a plain decimal: the last separator followed by two digits is the decimal point. */
export function normaliseAmount(s: string): string {
  const bare = s.replace(/[$€£]|USD|EUR|GBP|CHF|\s|'/g, '');
  const m = /^(-?)([\d.,]*?)[.,](\d{2})$/.exec(bare);
  if (!m) return bare.replace(/,/g, '');
  return `${m[1]}${m[2]!.replace(/[.,]/g, '') || '0'}.${m[3]}`;
}

/** What the document says about its amount style (for date order too): US, or day-first elsewhere. */
function orderHint(text: string): DateOrder {
  return dateOrderOf(text);
}

function dateField(raw: string, c: number, strength: number, order: DateOrder): ExtractedField {
  const iso = parseDate(raw, order);
  return field(
    raw.replace(/\s+(?=[./-])|(?<=[./-])\s+/g, ''),
    c,
    iso ? strength : strength * 0.6,
    iso ? { normalized: iso } : {},
  );
}

/** The grand total: the strongest total label wins, the last such line when several. */
function grandTotal(lines: string[]): { value: string; strength: number } | null {
  const ranks: [RegExp, number][] = [
    [/\bgrand\s+total\b/i, 1],
    [
      /\b(?:total\s+(?:amount\s+)?due|amount\s+due|balance\s+due|total\s+payable|amount\s+payable|total\s+to\s+pay|invoice\s+total)\b/i,
      0.98,
    ],
    [/(?<!sub\s?-?\s?)\btotal\b(?!\s*(?:tax|vat|ex|excl|net|before|of\s+items|qty|quantity|weight))/i, 0.9],
  ];
  const amountRe = new RegExp(AMOUNT, 'gi');
  for (const [label, strength] of ranks) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      const m = label.exec(line);
      if (!m || /\bsub\s?-?\s?total\b/i.test(line.slice(Math.max(0, m.index - 4), m.index + m[0].length))) continue;
      // The amount after the label on the same line, else on the next line (a label above its value).
      const after = [...line.slice(m.index + m[0].length).matchAll(amountRe)].map((a) => a[1]!);
      if (after.length > 0) return { value: normaliseAmount(after[after.length - 1]!), strength };
      const below = lines[i + 1] ? [...lines[i + 1]!.matchAll(amountRe)].map((a) => a[1]!) : [];
      if (below.length > 0) return { value: normaliseAmount(below[below.length - 1]!), strength: strength * 0.9 };
    }
  }
  return null;
}

/** A party name: the value trimmed of OCR specks and of anything after the next label. */
function cleanName(s: string): string {
  return s
    .replace(NEXT_LABEL, '')
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9.)]+$/g, '')
    .replace(/\s+[a-z]$/, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** OCR's usual slips inside a document number: ':' for '-', '§' for 'S', a zero for the O of a PO- prefix. */
function invoiceNumber(s: string): string {
  return s
    .replace(/:(?=\d)/g, '-')
    .replace(/^§/, 'S')
    .replace(/^([A-Z]+)0(?=-)/, '$1O');
}

const CUSTOMER_LABEL =
  /(?:\b|(?<=\s|^)8)(?:(?<!8)bill(?:ed)?\s+[ty]o|(?<=8)ill(?:ed)?\s+[ty]o|invoice(?:d)?\s+to|sold\s+to|customer(?!\s+(?:no|number|id|ref|#))|client(?!\s+(?:no|number|id|ref|#))|buyer)\b/i;
const VENDOR_LABEL = /\b(?:from|vendor|supplier|seller|issued\s+by|remit\s+to)\b\s*:/i;

/** The customer: the value after a bill-to label, or the next line when the label stands alone. */
function customerName(lines: string[]): { value: string; strength: number } | null {
  for (let i = 0; i < lines.length; i++) {
    const m = CUSTOMER_LABEL.exec(lines[i]!);
    if (!m) continue;
    const rest = cleanName(lines[i]!.slice(m.index + m[0].length).replace(/^\s*[:#.]?\s*/, ''));
    if (/[A-Za-z]{2,}/.test(rest)) return { value: rest, strength: 1 };
    const next = lines[i + 1] ? cleanName(lines[i + 1]!) : '';
    if (/[A-Za-z]{2,}/.test(next)) return { value: next, strength: 0.95 };
  }
  return null;
}

/**
 * The vendor: a labelled one (From:, Supplier:), else the letterhead, the first lines before the
 * customer block: the first with a company suffix, else the first line, without the title that
 * shares its row.
 */
function vendorName(lines: string[], customerLine: number): { value: string; strength: number } | null {
  const labelledVendor = lines.findIndex((l) => VENDOR_LABEL.test(l));
  if (labelledVendor >= 0) {
    const l = lines[labelledVendor]!;
    const m = VENDOR_LABEL.exec(l)!;
    const rest = cleanName(l.slice(m.index + m[0].length));
    if (/[A-Za-z]{2,}/.test(rest)) return { value: rest, strength: 1 };
  }
  const head = lines.slice(0, Math.min(customerLine >= 0 ? customerLine : 6, 6));
  const candidates = head
    .map((l) => cleanName(l.replace(TITLE, '')))
    .filter((l) => /[A-Za-z]{3,}/.test(l) && !/^\d/.test(l));
  const withSuffix = candidates.find((l) => COMPANY.test(l));
  if (withSuffix) return { value: withSuffix.replace(new RegExp(`(${COMPANY.source}).*$`), '$1'), strength: 0.9 };
  return candidates[0] ? { value: candidates[0], strength: 0.7 } : null;
}

/** An address line: a number and street word, or a postcode / ZIP pattern. */
const ADDRESS =
  /(\d+\s+[A-Za-z][A-Za-z .'-]*\b(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Place|Pl|Court|Ct|Square|Sq)\b.*)|(\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b)|(\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b)|([A-Za-zß]+(?:strasse|straße|str\.|weg|platz|gracht)\s+\d+)|(\b\d{4,5}\s+[A-Z][a-zäöüé]+)/;

export function extractFields(text: string, ocrConfidence: number): ExtractedFields {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const out: ExtractedFields = {};
  const c = ocrConfidence;
  const order = orderHint(text);

  const invoice = labelled(
    lines,
    /\b(?:inv[oa0]ice|inv|bill)\s*(?:no|number|num|#|n°)\.?/,
    String.raw`#?\s*([A-Z0-9§][A-Z0-9/_:-]{2,})`,
  );
  if (invoice) out.invoice_number = field(invoiceNumber(invoice.value), c, 1);
  else {
    // A bare INV- number must hold a digit (not the word INVOICE).
    const bare = /\b(INV[-/]?(?=[A-Z-]*\d)[A-Z0-9-]{3,})\b/i.exec(text);
    if (bare?.[1]) out.invoice_number = field(bare[1], c, 0.7);
  }

  const invoiceDate = labelled(
    lines,
    /(?<!due[\s.]{0,2})(?<!payment\s)\b(?:inv[oa0]ice\s+dat[eé]|dat[eé]\s+of\s+issue|issue\s+date|issued|tax\s+point|dat[eé])(?![\s.]*due)/,
    DATE,
  );
  if (invoiceDate) out.invoice_date = dateField(invoiceDate.value, c, 1, order);
  const due = labelled(lines, /\b(?:due[\s.]*dat[eé]|payment\s+due|due\s+by|due|pay\s+by)/, DATE);
  if (due) out.due_date = dateField(due.value, c, 1, order);
  const dates = [...text.matchAll(new RegExp(DATE, 'gi'))].map((m) => m[1]!);
  if (dates.length > 0) out.dates = [...new Set(dates)].map((d) => dateField(d, c, 0.9, order));

  const total = grandTotal(lines);
  if (total) out.total = field(total.value, c, total.strength);
  const subtotal = labelled(lines, /\bsub\s*-?\s*total/, AMOUNT);
  if (subtotal) out.subtotal = field(normaliseAmount(subtotal.value), c, 1);
  const tax = labelled(lines, /\b(?:vat|tax|gst|sales\s+tax)(?:\s*\(?\d{1,2}(?:[.,]\d+)?\s*%\)?)?/, AMOUNT);
  if (tax) out.tax = field(normaliseAmount(tax.value), c, 0.95);
  const currency = CURRENCY.exec(text);
  if (currency) out.currency = field(currency[1] ?? SYMBOLS[currency[2]!]!, c, currency[1] ? 1 : 0.8);

  // Parties: the customer (bill-to) and the vendor (letterhead or a From/Supplier label).
  const looksLikeBusiness = Boolean(out.invoice_number ?? out.total ?? out.invoice_date);
  const customerLine = lines.findIndex((l) => CUSTOMER_LABEL.test(l));
  const customer = customerName(lines);
  const vendor = looksLikeBusiness ? vendorName(lines, customerLine) : null;
  if (vendor) out.vendor_name = field(vendor.value, c, vendor.strength);
  if (customer) out.customer_name = field(customer.value, c, customer.strength);
  const parties: ExtractedField[] = [];
  if (vendor) parties.push({ ...field(vendor.value, c, vendor.strength), role: 'issuer' });
  if (customer) parties.push({ ...field(customer.value, c, customer.strength), role: 'customer' });
  if (parties.length > 0) out.parties = parties;

  const addresses = lines
    .filter((l) => ADDRESS.test(l) && !/invoice|total|date/i.test(l))
    .map((l) => field(l, c, 0.85));
  if (addresses.length > 0) out.addresses = addresses;
  return out;
}
