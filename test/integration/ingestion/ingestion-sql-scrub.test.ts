// PII scrubbing written as SQL (sql-scrub.ts: HMAC-SHA-256 from the built-in sha256(), the ASCII
// mask) must give exactly what the record path's scrubber (pii-scrubber.ts, Node's crypto) gives,
// value by value, or NULL where it cannot (a non-ASCII mask). Runs on PGlite and, with
// DATABASE_URL, on PostgreSQL: both have sha256(), neither needs pgcrypto.
import { randomBytes } from 'node:crypto';
import { piiScrubber, tenantPiiKey } from '../../../subgraphs/ingestion/pii-scrubber';
import { hmacPads, scrubSql } from '../../../subgraphs/ingestion/sql-scrub';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await db.drop();
});

const VALUES = [
  '123-45-6789',
  'user1@example.com',
  '',
  ' ',
  'say "hi" \\ back\tslash\nnewline',
  'x'.repeat(200),
  '-1.5e-7',
  'ünïcödé ✓',
  'emoji 🙂 and 日本語',
  'ß',
];

/** Each value scrubbed in SQL, in one query (the values and pads are bind parameters). */
async function inSql(action: 'mask' | 'hash' | 'tokenize', field: string, key: Buffer): Promise<(string | null)[]> {
  const pads = hmacPads(key);
  const res = await db.sql.query<{ s: string | null }>(
    `SELECT ${scrubSql(action, field, 'v', '$2', '$3')} AS s FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i) ORDER BY i`,
    action === 'mask' ? [VALUES] : [VALUES, pads.inner, pads.outer],
  );
  return res.rows.map((r) => r.s);
}

const inNode = (action: 'mask' | 'hash' | 'tokenize', field: string, key: Buffer) => {
  const scrub = piiScrubber({ [field]: action }, key);
  return VALUES.map((v) => scrub({ [field]: v })[field] as string);
};

describe('PII scrubbing in SQL equals pii-scrubber.ts', () => {
  const key = tenantPiiKey('the-service-secret', 'tenant-a');

  it.each(['hash', 'tokenize'] as const)('%s: every value, byte for byte', async (action) => {
    expect(await inSql(action, 'ssn', key)).toEqual(inNode(action, 'ssn', key));
  });

  it('hash and tokenize are keyed per tenant: another tenant gets other values, still equal to Node', async () => {
    const other = tenantPiiKey('the-service-secret', 'tenant-b');
    const a = await inSql('hash', 'email', key);
    const b = await inSql('hash', 'email', other);
    expect(b).toEqual(inNode('hash', 'email', other));
    expect(b[0]).not.toEqual(a[0]);
  });

  it('a key longer than the hash block (64 bytes) is hashed first, as HMAC defines', async () => {
    const long = randomBytes(100);
    expect(await inSql('tokenize', 'phone', long)).toEqual(inNode('tokenize', 'phone', long));
  });

  it('mask: ASCII values equal; a non-ASCII value is NULL (the batch then goes record by record)', async () => {
    const sql = await inSql('mask', 'ssn', key);
    const node = inNode('mask', 'ssn', key);
    VALUES.forEach((v, i) => {
      // eslint-disable-next-line no-control-regex
      if (/^[\x00-\x7f]*$/.test(v)) expect(sql[i]).toBe(node[i]);
      else expect(sql[i]).toBeNull();
    });
    expect(sql[0]).toBe('***-**-****');
  });
});
