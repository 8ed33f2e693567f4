// Key fields of common business documents from OCR text: invoice number, dates, totals, parties
// and addresses, each with a confidence. Rule-based (labels and value shapes); a field's
// confidence is the page's OCR confidence scaled by how strongly the rule matched (a labelled
// value beats a bare pattern), so a doubtful scan gives doubtful fields.
import type { ExtractedField, ExtractedFields } from './ocr.types';

const DATE = String.raw`(\d{4}-\d{2}-\d{2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{4}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4})`;
const AMOUNT = String.raw`([$€£]?\s?-?\d{1,3}(?:[,\s]\d{3})*(?:\.\d{2})|[$€£]?\s?-?\d+(?:\.\d{2}))`;
const CURRENCY = /\b(USD|EUR|GBP|CHF|JPY|CAD|AUD)\b|([$€£])/;
const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP' };

const field = (value: string, confidence: number, strength: number): ExtractedField => ({ value: value.trim(), confidence: Math.round(confidence * strength * 1000) / 1000 });

function labelled(lines: string[], label: RegExp, value: string): { value: string; line: number } | null {
  const re = new RegExp(label.source + String.raw`\s*[:#.]?\s*` + value, 'i');
  for (let i = 0; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m?.[1]) return { value: m[1], line: i };
  }
  return null;
}

const amount = (s: string) => s.replace(/[$€£\s]/g, '').replace(/,/g, '');

/** An address line: a number and street word, or a postcode / ZIP pattern. */
const ADDRESS = /(\d+\s+[A-Za-z][A-Za-z .'-]*\b(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Place|Pl|Court|Ct|Square|Sq)\b.*)|(\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b)|(\b[A-Z]{2}\s\d{5}(?:-\d{4})?\b)/;

export function extractFields(text: string, ocrConfidence: number): ExtractedFields {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const out: ExtractedFields = {};
  const c = ocrConfidence;

  const invoice = labelled(lines, /\b(?:invoice|inv|bill)\s*(?:no|number|num|#)/, String.raw`([A-Z0-9][A-Z0-9/_-]{2,})`);
  if (invoice) out.invoice_number = field(invoice.value, c, 1);
  else {
    const bare = /\b(INV[-/]?[A-Z0-9-]{3,})\b/i.exec(text);
    if (bare?.[1]) out.invoice_number = field(bare[1], c, 0.7);
  }

  const invoiceDate = labelled(lines, /\b(?:invoice\s+date|date\s+of\s+issue|issue\s+date|date)/, DATE);
  if (invoiceDate) out.invoice_date = field(invoiceDate.value, c, 1);
  const due = labelled(lines, /\b(?:due\s+date|payment\s+due|due)/, DATE);
  if (due) out.due_date = field(due.value, c, 1);
  const dates = [...text.matchAll(new RegExp(DATE, 'gi'))].map((m) => m[1]!);
  if (dates.length > 0) out.dates = [...new Set(dates)].map((d) => field(d, c, 0.9));

  const total = labelled(lines, /\b(?:grand\s+total|total\s+due|amount\s+due|balance\s+due|total)(?!\s*ex)/, AMOUNT);
  if (total) out.total = field(amount(total.value), c, 1);
  const subtotal = labelled(lines, /\bsub\s*-?\s*total/, AMOUNT);
  if (subtotal) out.subtotal = field(amount(subtotal.value), c, 1);
  const tax = labelled(lines, /\b(?:vat|tax|gst|sales\s+tax)(?:\s*\d{1,2}(?:\.\d+)?\s*%)?/, AMOUNT);
  if (tax) out.tax = field(amount(tax.value), c, 0.95);
  const currency = CURRENCY.exec(text);
  if (currency) out.currency = field(currency[1] ?? SYMBOLS[currency[2]!]!, c, currency[1] ? 1 : 0.8);

  // Parties: the labelled customer, and the issuer (the first line, by invoice convention).
  const billTo = labelled(lines, /\b(?:bill(?:ed)?\s+to|sold\s+to|customer|client)/, String.raw`(.+)`);
  const parties: ExtractedField[] = [];
  const looksLikeInvoice = Boolean(out.invoice_number ?? out.total);
  if (looksLikeInvoice && lines[0] && !/invoice/i.test(lines[0])) parties.push({ ...field(lines[0], c, 0.8), role: 'issuer' });
  if (billTo) parties.push({ ...field(billTo.value, c, 1), role: 'customer' });
  if (parties.length > 0) out.parties = parties;

  const addresses = lines.filter((l) => ADDRESS.test(l) && !/invoice|total|date/i.test(l)).map((l) => field(l, c, 0.85));
  if (addresses.length > 0) out.addresses = addresses;
  return out;
}
