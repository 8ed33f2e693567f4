// Where a data asset's records come from, named by the target's path: an ingestion batch's
// staged records (`ingestion:batch/<batch id>`, through the typed IngestionClient), or the
// retrieval service's documents (`retrieval:documents`, every active document of the tenant, or
// `retrieval:document/<document id>`, one), through the typed RetrievalClient. A document is one
// record of its title, description and metadata at `retrieval:document/<id>`, then one record per
// chunk of its text at `retrieval:document/<id>/chunks/<ord>`. Every read is made as the scanner
// for the target's tenant, so the serving service's tenant rule decides what can be read.
import type { ServiceCallContext } from '../../platform/clients/service-request';
import type { IngestionClient } from '../../platform/clients/ingestion.client';
import type { RetrievalClient } from '../../platform/clients/retrieval.client';
import type { SampledRecord } from './data-asset-pii';

const INGESTION_BATCH = 'ingestion:batch\\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})';
const RETRIEVAL_DOCUMENT =
  'retrieval:document\\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';

/** The data-asset paths a target may name. */
export const DATA_ASSET = new RegExp(`^(?:${INGESTION_BATCH}|retrieval:documents|${RETRIEVAL_DOCUMENT})$`);

export type DataAssetRef =
  { source: 'ingestion'; batchId: string } | { source: 'retrieval'; documentId: string | null };

/** The asset a (checked) data-asset path names; null when the path is not one. */
export function dataAssetOf(path: string): DataAssetRef | null {
  const m = DATA_ASSET.exec(path);
  if (!m) return null;
  if (m[1] !== undefined) return { source: 'ingestion', batchId: m[1] };
  return { source: 'retrieval', documentId: m[2] ?? null };
}

/** An ingestion batch's staged records in offset order. */
export async function* ingestionRecords(
  client: Pick<IngestionClient, 'allRecords'>,
  context: ServiceCallContext,
  batchId: string,
): AsyncGenerator<SampledRecord> {
  for await (const r of client.allRecords(context, batchId, 500)) yield { offset: r.offset, data: r.data };
}

/** Retrieval documents (one, or all the tenant's) as records: each document's fields, then its chunks. */
export async function* retrievalRecords(
  client: Pick<RetrievalClient, 'document' | 'allDocuments' | 'allChunks'>,
  context: ServiceCallContext,
  documentId: string | null,
  /** Told of each document read (the retention check's ages). */
  onDocument: (doc: { id: string; created_at: string }) => void = () => undefined,
): AsyncGenerator<SampledRecord> {
  const documents =
    documentId === null
      ? client.allDocuments(context)
      : (async function* () {
          yield await client.document(context, documentId);
        })();
  let offset = 0;
  for await (const doc of documents) {
    const at = `retrieval:document/${doc.id}`;
    onDocument(doc);
    yield {
      offset: offset++,
      at,
      data: { title: doc.title, description: doc.description, doc_metadata: doc.doc_metadata },
    };
    for await (const c of client.allChunks(context, doc.id))
      yield { offset: offset++, at: `${at}/chunks/${c.ord}`, data: { heading: c.heading, content: c.content } };
  }
}
