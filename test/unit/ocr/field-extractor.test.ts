// Key fields from OCR text: labelled values beat bare patterns, each field's confidence follows
// the page's OCR confidence, and text with nothing recognisable gives no invented fields. Vendor
// and customer names, the grand total (not the subtotal or tax) and dates in US, UK and EU styles,
// including the way OCR reads a two-column header (two columns on one line) and its usual slips.
import { parseDate, dateOrderOf } from '../../../subgraphs/ocr/dates';
import { extractFields, normaliseAmount } from '../../../subgraphs/ocr/field-extractor';
import { invoiceLines } from '../../fixtures/ocr/invoice-pages';
import { scannedPage } from '../../fixtures/ocr/scanned-pages';

test('the generated invoice: number, dates, totals, currency, parties and addresses', () => {
  const f = extractFields(invoiceLines(1).join('\n'), 0.9) as any;
  expect(f.invoice_number).toEqual({ value: 'INV-2026-1037', confidence: 0.9 });
  expect(f.invoice_date).toEqual({ value: '2026-03-15', normalized: '2026-03-15', confidence: 0.9 });
  expect(f.due_date.normalized).toBe('2026-04-14');
  expect(f.dates.map((d: any) => d.value)).toEqual(['2026-03-15', '2026-04-14']);
  expect(f.total.value).toBe('150.00');
  expect(f.subtotal.value).toBe('125.00');
  expect(f.tax.value).toBe('25.00');
  expect(f.currency.value).toBe('GBP');
  expect(f.vendor_name).toEqual({ value: 'ACME Supplies Ltd', confidence: 0.81 });
  expect(f.customer_name).toEqual({ value: 'Northwind Traders', confidence: 0.9 });
  expect(f.parties).toEqual([
    { value: 'ACME Supplies Ltd', confidence: 0.81, role: 'issuer' },
    { value: 'Northwind Traders', confidence: 0.9, role: 'customer' },
  ]);
  expect(f.addresses.map((a: any) => a.value)).toEqual([
    '12 Harbour Street, Leeds LS1 4AB',
    '45 Market Road, Bristol BS1 5TR',
  ]);
});

test('US formats: "Invoice #", month names, $ amounts with thousands, ZIP codes', () => {
  const text = [
    'Globex Corporation',
    '500 Main Street, Springfield, IL 62701',
    'Invoice # A-77812',
    'Date: March 3, 2026',
    'Amount Due: $12,450.00',
  ].join('\n');
  const f = extractFields(text, 0.8) as any;
  expect(f.invoice_number.value).toBe('A-77812');
  expect(f.invoice_date).toMatchObject({ value: 'March 3, 2026', normalized: '2026-03-03' });
  expect(f.total.value).toBe('12450.00');
  expect(f.currency).toEqual({ value: 'USD', confidence: 0.64 });
  expect(f.vendor_name.value).toBe('Globex Corporation');
  expect(f.addresses[0].value).toContain('500 Main Street');
});

test('a two-column header as OCR reads it: the title is cut from the vendor, the customer sits under its label', () => {
  const text = [
    'Kessler & Vogt GmbH TAX INVOICE',
    'Industriestrasse 42',
    '70565 Stuttgart, Germany Invoice No: PO-2025-8954',
    'USt-IdNr. DE346767267 Date: 19.11.2025',
    'Payment Due: 3.1.2026',
    'Bill To:',
    'Hoffmann Bau AG',
    'Description Qty Unit Price Amount',
    'Consulting hours 4 1.250,00 5.000,00',
    'Subtotal 5.000,00 EUR',
    'VAT 19% 950,00 EUR',
    'Shipping 25,00 EUR',
    'Grand Total 5.975,00 EUR',
    'Payment terms: 30 days.',
  ].join('\n');
  const f = extractFields(text, 1) as any;
  expect(f.vendor_name.value).toBe('Kessler & Vogt GmbH');
  expect(f.customer_name.value).toBe('Hoffmann Bau AG');
  expect(f.invoice_number.value).toBe('PO-2025-8954');
  expect(f.invoice_date.normalized).toBe('2025-11-19');
  expect(f.due_date.normalized).toBe('2026-01-03');
  expect(f.total.value).toBe('5975.00');
  expect(f.subtotal.value).toBe('5000.00');
  expect(f.tax.value).toBe('950.00');
});

test('the grand total wins over subtotal, tax and an earlier "Total" column; a label above its value is read', () => {
  const text = [
    'Blue Ridge Office Supply Inc.',
    'Item Qty Total',
    'Paper 2 $20.00',
    'Subtotal $20.00',
    'Sales Tax (7%) $1.40',
    'Total',
    '$21.40',
    'Total tax $1.40',
  ].join('\n');
  expect((extractFields(text, 1) as any).total.value).toBe('21.40');
  const due = ['Acme Ltd', 'Total 100.00', 'Less deposit 40.00', 'Balance Due £60.00'].join('\n');
  expect((extractFields(due, 1) as any).total.value).toBe('60.00');
});

test('dates in US, UK and EU styles, with the document deciding the order of an ambiguous one', () => {
  expect(parseDate('03/04/2026', 'MDY')).toBe('2026-03-04');
  expect(parseDate('03/04/2026', 'DMY')).toBe('2026-04-03');
  expect(parseDate('25/12/2026', 'MDY')).toBe('2026-12-25'); // a part above 12 settles it
  expect(parseDate('03.04.2026', 'MDY')).toBe('2026-04-03'); // dotted dates are day first
  expect(parseDate('3 Apr 2026')).toBe('2026-04-03');
  expect(parseDate('3rd April, 2026')).toBe('2026-04-03');
  expect(parseDate('Sept 30, 2026')).toBe('2026-09-30');
  expect(parseDate('10 0ct 2026')).toBe('2026-10-10'); // OCR's zero for O
  expect(parseDate('2026-02-30')).toBeNull();
  expect(parseDate('12-05-26', 'DMY')).toBe('2026-05-12');
  expect(dateOrderOf('Total $5.00 Springfield, IL 62701')).toBe('MDY');
  expect(dateOrderOf('VAT 20% £5.00 and one misread $3.00')).toBe('DMY');
  const us = extractFields(
    [
      'Pinecrest Medical Devices LLC',
      'Denver, CO 80202',
      'Invoice Date: 04/05/2026',
      'Due Date: 05/05/2026',
      'Total Due $9.00',
    ].join('\n'),
    1,
  ) as any;
  expect([us.invoice_date.normalized, us.due_date.normalized]).toEqual(['2026-04-05', '2026-05-05']);
  const uk = extractFields(
    [
      'Thornbury Catering Ltd',
      'Invoice Date: 04/05/2026',
      'Due Date: 4 June 2026',
      'VAT 20% £1.00',
      'Total £6.00',
    ].join('\n'),
    1,
  ) as any;
  expect([uk.invoice_date.normalized, uk.due_date.normalized]).toEqual(['2026-05-04', '2026-06-04']);
});

test('amounts in every grouping style become plain decimals', () => {
  expect(['$12,450.00', '12.450,00 EUR', '£1 234.50', "CHF 1'234.50", '99,95', '-5.00'].map(normaliseAmount)).toEqual([
    '12450.00',
    '12450.00',
    '1234.50',
    '1234.50',
    '99.95',
    '-5.00',
  ]);
});

test('OCR slips: "Due.Date", a colon inside the number, a bare INVOICE is not a number', () => {
  const f = extractFields(
    [
      'Harbourside Engineering Ltd Invoice',
      'Invoice Number: ST-2026:3472',
      'Date: 10 Oct 2026',
      'Due.Date: 9 November 2026',
      '8ill To: -',
      'Caldera Foods Ltd',
      'VAT 20%',
      'TOTAL £5.00',
    ].join('\n'),
    1,
  ) as any;
  expect(f.invoice_number.value).toBe('ST-2026-3472');
  expect(f.invoice_date.normalized).toBe('2026-10-10');
  expect(f.due_date.normalized).toBe('2026-11-09');
  expect(f.customer_name.value).toBe('Caldera Foods Ltd');
  expect(extractFields('INVOICE\nthanks', 1).invoice_number).toBeUndefined();
});

test('every generated invoice of the scanned set, from its printed text: all six fields exact', () => {
  for (let seed = 1; seed < 40; seed++) {
    if (seed % 6 > 2) continue;
    const page = scannedPage(seed, 0);
    const f = extractFields(page.text, 1) as any;
    expect({
      invoice_number: f.invoice_number?.value,
      invoice_date: f.invoice_date?.normalized,
      due_date: f.due_date?.normalized,
      total: f.total?.value,
      vendor_name: f.vendor_name?.value,
      customer_name: f.customer_name?.value,
    }).toEqual(page.fields);
  }
});

test('a bare INV- number has a lower confidence than a labelled one; no text, no fields', () => {
  expect((extractFields('ref INV-99812 attached', 1) as any).invoice_number).toEqual({
    value: 'INV-99812',
    confidence: 0.7,
  });
  expect(extractFields('the quick brown fox', 0.95)).toEqual({});
});
