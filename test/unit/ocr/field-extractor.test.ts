// Key fields from OCR text: labelled values beat bare patterns, each field's confidence follows
// the page's OCR confidence, and text with nothing recognisable gives no invented fields.
import { extractFields } from '../../../subgraphs/ocr/field-extractor';
import { invoiceLines } from '../../fixtures/ocr/invoice-pages';

test('the generated invoice: number, dates, totals, currency, parties and addresses', () => {
  const f = extractFields(invoiceLines(1).join('\n'), 0.9) as any;
  expect(f.invoice_number).toEqual({ value: 'INV-2026-1037', confidence: 0.9 });
  expect(f.invoice_date.value).toBe('2026-03-15');
  expect(f.due_date.value).toBe('2026-04-14');
  expect(f.dates.map((d: any) => d.value)).toEqual(['2026-03-15', '2026-04-14']);
  expect(f.total.value).toBe('150.00');
  expect(f.subtotal.value).toBe('125.00');
  expect(f.tax.value).toBe('25.00');
  expect(f.currency.value).toBe('GBP');
  expect(f.parties).toEqual([
    { value: 'ACME Supplies Ltd', confidence: 0.72, role: 'issuer' },
    { value: 'Northwind Traders', confidence: 0.9, role: 'customer' },
  ]);
  expect(f.addresses.map((a: any) => a.value)).toEqual(['12 Harbour Street, Leeds LS1 4AB', '45 Market Road, Bristol BS1 5TR']);
});

test('US formats: "Invoice #", month names, $ amounts with thousands, ZIP codes', () => {
  const text = ['Globex Corporation', '500 Main Street, Springfield, IL 62701', 'Invoice # A-77812', 'Date: March 3, 2026', 'Amount Due: $12,450.00'].join('\n');
  const f = extractFields(text, 0.8) as any;
  expect(f.invoice_number.value).toBe('A-77812');
  expect(f.invoice_date.value).toBe('March 3, 2026');
  expect(f.total.value).toBe('12450.00');
  expect(f.currency).toEqual({ value: 'USD', confidence: 0.64 });
  expect(f.addresses[0].value).toContain('500 Main Street');
});

test('a bare INV- number has a lower confidence than a labelled one; no text, no fields', () => {
  expect((extractFields('ref INV-99812 attached', 1) as any).invoice_number).toEqual({ value: 'INV-99812', confidence: 0.7 });
  expect(extractFields('the quick brown fox', 0.95)).toEqual({});
});
