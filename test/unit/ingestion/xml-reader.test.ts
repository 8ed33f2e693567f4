// XML sources: records by element, attributes and children as fields, read in small chunks; a
// DOCTYPE (external entities, entity bombs) and an undeclared entity are refused; the record
// length and field count bounds hold.
import { Readable } from 'node:stream';
import { readRecords, SourceFormatError } from '../../../subgraphs/ingestion/record-reader';

const limits = { maxBytes: 1 << 20, maxRecordBytes: 200, maxColumns: 4 };
const format = { type: 'xml' as const, record_element: 'customer' };

/** The text in 7-byte chunks, so elements and text are split across writes. */
const source = (text: string) => () =>
  Readable.from(
    Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => Buffer.from(text.slice(i * 7, i * 7 + 7))),
  );

async function all(text: string, lim = limits) {
  const read = await readRecords(source(text), format, lim);
  const out = [];
  for await (const r of read.records) out.push(r);
  return out;
}

it('reads each record element, with attributes, children and repeated children', async () => {
  const xml = `<?xml version="1.0"?><export><customers>
    <customer id="1"><name>Ada &amp; co</name><email>a@x.io</email></customer>
    <customer id="2"><name><![CDATA[Bob <b>]]></name><tag>x</tag><tag>y</tag></customer>
  </customers></export>`;
  const records = await all(xml);
  expect(records.map((r) => [r.offset, r.record])).toEqual([
    [0, { id: '1', name: 'Ada & co', email: 'a@x.io' }],
    [1, { id: '2', name: 'Bob <b>', tag: ['x', 'y'] }],
  ]);
});

it('refuses a DOCTYPE: external entities (XXE) and entity bombs are never expanded', async () => {
  const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><customer><name>&x;</name></customer></r>`;
  await expect(all(xxe)).rejects.toThrow(/DOCTYPE is refused/);
  const lol = `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><l><customer><n>&b;</n></customer></l>`;
  await expect(all(lol)).rejects.toThrow(SourceFormatError);
  await expect(all('<r><customer><n>&x;</n></customer></r>')).rejects.toThrow(/XML: .*entity/i);
});

it('bounds a record by length and by field count, and reports malformed XML', async () => {
  await expect(all(`<r><customer><n>${'x'.repeat(500)}</n></customer></r>`)).rejects.toThrow(/longer than 200/);
  await expect(all('<r><customer><a>1</a><b>1</b><c>1</c><d>1</d><e>1</e></customer></r>')).rejects.toThrow(
    /more than 4 fields/,
  );
  await expect(all('<r><customer><n>1</customer></r>')).rejects.toThrow(/XML: /);
});
