// Unmasked PII in a data asset's records: found with the platform's detectors, named by asset,
// record offset, field and span, never by value; masked values pass; the sample is bounded.
import { InputError } from '../../../platform/errors/domain-errors';
import { samplePii } from '../../../subgraphs/compliance-scanner/data-asset-pii';
import { compilePack } from '../../../subgraphs/compliance-scanner/scanner-pack';

const EMAIL = 'jane.doe@example.com';
const SSN = '123-45-6789';
const CARD = '4111 1111 1111 1111';

async function* batch(records: { offset: number; data: unknown }[]) {
  for (const r of records) yield r;
}

it('names the asset, record offset, field and span of each unmasked value, never the value', async () => {
  const sample = await samplePii(
    'ingestion:batch/b1',
    batch([
      { offset: 0, data: { name: 'Jane', note: `mail ${EMAIL} please`, amount: 12 } },
      { offset: 1, data: { customer: { ssn: SSN, 'card number': [`card ${CARD}`] } } },
      { offset: 2, data: { ssn: '***-**-6789', email: 'j***@example.com' } },
    ]),
  );
  expect(sample.sightings).toEqual([
    { asset: 'ingestion:batch/b1', offset: 0, field: '$.note', category: 'email', start: 5, end: 5 + EMAIL.length },
    { asset: 'ingestion:batch/b1', offset: 1, field: '$.customer.ssn', category: 'ssn', start: 0, end: SSN.length },
    {
      asset: 'ingestion:batch/b1',
      offset: 1,
      field: '$.customer["card number"][0]',
      category: 'card',
      start: 5,
      end: 5 + CARD.length,
    },
  ]);
  expect(sample).toMatchObject({ recordsSampled: 3, truncated: false });
  const text = JSON.stringify(sample);
  for (const value of [EMAIL, SSN, CARD]) expect(text).not.toContain(value);
});

it('reads no more than the sample and keeps no more than the limit of sightings', async () => {
  let read = 0;
  async function* endless() {
    for (let offset = 0; ; offset++) {
      read++;
      yield { offset, data: { a: EMAIL, b: EMAIL } };
    }
  }
  const sample = await samplePii('rag:document/d1', endless(), { maxRecords: 50, maxSightings: 5 });
  expect(sample.sightings).toHaveLength(5);
  expect(sample.truncated).toBe(true);
  expect(read).toBeLessThanOrEqual(50);
  read = 0;
  async function* clean() {
    for (let offset = 0; ; offset++) {
      read++;
      yield { offset, data: { amount: offset } };
    }
  }
  expect(await samplePii('x', clean(), { maxRecords: 50 })).toEqual({
    sightings: [],
    recordsSampled: 50,
    truncated: false,
  });
  expect(read).toBe(50);
  const small = await samplePii('x', [{ offset: 7, data: [[[EMAIL]]] }], { maxDepth: 2 });
  expect(small.sightings).toEqual([]);
});

it('a pii rule takes neither cel, pattern nor files', () => {
  const rule = {
    id: 'data.unmasked-pii',
    severity: 'high',
    description: 'PII in the clear.',
    remediation: 'Mask it.',
    controls: ['sc-28'],
    input: 'pii',
  };
  const pack = (r: Record<string, unknown>) => ({
    metadata: { pack_id: 'p', version: '1.0.0', name: 'P' },
    rules: [r],
  });
  expect(compilePack(pack(rule)).rules[0]!.rule.input).toBe('pii');
  expect(() => compilePack(pack({ ...rule, cel: 'true' }))).toThrow(InputError);
  expect(() => compilePack(pack({ ...rule, files: ['**/*'] }))).toThrow(InputError);
});
