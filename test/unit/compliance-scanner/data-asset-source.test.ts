// Where a data asset's records come from: the target paths accepted (an ingestion batch, all of a
// tenant's retrieval documents, one document by id) and the retrieval documents turned into
// records (each document's fields, then its chunks, each with its own location), read only
// through the client calls the asset needs (a strict fake fails on any other).
import type { RetrievalClient } from '../../../platform/clients/retrieval.client';
import { samplePii } from '../../../subgraphs/compliance-scanner/data-asset-pii';
import { dataAssetOf, retrievalRecords } from '../../../subgraphs/compliance-scanner/data-asset-source';
import { strictFake } from '../../support/strict-fake';

const D1 = '0b0c3f4e-1111-4a2b-9c3d-000000000001';
const D2 = '0b0c3f4e-1111-4a2b-9c3d-000000000002';
const EMAIL = 'jane.doe@example.com';

const view = (id: string, description: string | null) => ({
  id,
  title: `doc ${id.slice(-1)}`,
  level: 'platform',
  suite_id: null,
  module_id: null,
  entity_id: null,
  description,
  access_level: 'internal',
  status: 'active',
  doc_metadata: {},
  chunks_count: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});
const CHUNKS: Record<string, { ord: number; heading: string | null; content: string }[]> = {
  [D1]: [
    { ord: 0, heading: 'Intro', content: 'nothing here' },
    { ord: 1, heading: null, content: `write to ${EMAIL}` },
  ],
  [D2]: [{ ord: 0, heading: null, content: 'plain' }],
};
async function* from<T>(items: readonly T[]) {
  yield* items;
}

it('accepts the data-asset paths it can read, and nothing else', () => {
  expect(dataAssetOf('ingestion:batch/b-1')).toEqual({ source: 'ingestion', batchId: 'b-1' });
  expect(dataAssetOf('retrieval:documents')).toEqual({ source: 'retrieval', documentId: null });
  expect(dataAssetOf(`retrieval:document/${D1}`)).toEqual({ source: 'retrieval', documentId: D1 });
  for (const bad of ['retrieval:document/x', 'retrieval:documents/', `retrieval:document/${D1}/chunks/1`, '/etc'])
    expect(dataAssetOf(bad)).toBeNull();
});

it("samples every document's fields and chunks, each finding placed at its document and chunk", async () => {
  const client = strictFake<RetrievalClient>({
    allDocuments: () => from([view(D1, null), view(D2, `owner ${EMAIL}`)]),
    allChunks: (_ctx, id) => from(CHUNKS[id]!),
  });
  const sample = await samplePii('retrieval:documents', retrievalRecords(client, { tenantId: 'a' }, null));
  expect(sample.recordsSampled).toBe(5);
  expect(sample.sightings.map((s) => [s.at, s.field, s.category])).toEqual([
    [`retrieval:document/${D1}/chunks/1`, '$.content', 'email'],
    [`retrieval:document/${D2}`, '$.description', 'email'],
  ]);
});

it('reads one document by id, never the list', async () => {
  const asked: string[] = [];
  const client = strictFake<RetrievalClient>({
    document: async (ctx, id) => {
      asked.push(`${ctx.tenantId}:${id}`);
      return view(id, null);
    },
    allChunks: (_ctx, id) => from(CHUNKS[id]!),
  });
  const sample = await samplePii(`retrieval:document/${D1}`, retrievalRecords(client, { tenantId: 'a' }, D1), {
    maxRecords: 2,
  });
  expect(asked).toEqual([`a:${D1}`]);
  // The sample stops at its bound: the second chunk is never read.
  expect(sample.recordsSampled).toBe(2);
  expect(sample.sightings).toEqual([]);
});
