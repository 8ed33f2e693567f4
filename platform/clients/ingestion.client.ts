// Typed client of the ingestion service (port 8092) for the services that read what it staged
// (DataFlow, triggered by `ingestion.completed`): a pipeline, a batch with its manifest, and the
// batch's staged records page by page. Errors are ServiceCallErrors that say whether a retry can help.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  IngestionBatchView,
  IngestionPipelineView,
  IngestionRecordsPage,
  IngestionStagedRecordView,
} from '../contracts/clients/ingestion.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { IngestionBatchView, IngestionPipelineView, IngestionRecordsPage, IngestionStagedRecordView };

export class IngestionClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  pipeline(context: ServiceCallContext, id: string): Promise<IngestionPipelineView> {
    return serviceRequest(this.endpoint, `api/ingestion/pipelines/${encodeURIComponent(id)}`, context);
  }

  /** A batch: its status, progress and (once completed) manifest. A missing batch is a ServiceCallError 404. */
  batch(context: ServiceCallContext, id: string): Promise<IngestionBatchView> {
    return serviceRequest(this.endpoint, `api/ingestion/batches/${encodeURIComponent(id)}`, context);
  }

  /** One page of a batch's staged records in offset order, after `after` (-1 for the first). */
  records(
    context: ServiceCallContext,
    batchId: string,
    page: { after?: number; limit?: number } = {},
  ): Promise<IngestionRecordsPage> {
    return serviceRequest(this.endpoint, `api/ingestion/batches/${encodeURIComponent(batchId)}/records`, context, {
      query: { after: page.after, limit: page.limit },
    });
  }

  /** Every staged record of a batch, page by page (for a consumer that streams them). */
  async *allRecords(
    context: ServiceCallContext,
    batchId: string,
    pageSize = 1000,
  ): AsyncGenerator<IngestionStagedRecordView> {
    let after = -1;
    for (;;) {
      const page = await this.records(context, batchId, { after, limit: pageSize });
      yield* page.records;
      if (page.next_after === null || page.records.length < pageSize) return;
      after = page.next_after;
    }
  }
}
