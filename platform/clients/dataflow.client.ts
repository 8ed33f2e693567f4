// Typed client for DataFlow (8145), for the workflow service's `dataflow` step: run a certified
// dataflow pack once per idempotency key and read the run. Wire contract: docs/dataflow.md.
// A pack that fails on its own (bad SQL, a stopped expression, mismatched schemas) is a 422; a
// draft or another kind of pack 409; an unknown pack 404; the registry or database away 503.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type { DataflowRunView, RunDataflowPackRequest } from '../contracts/clients/dataflow.api';
export type { DataflowRunView, RunDataflowPackRequest };

export class DataflowClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** Runs the pack now and answers with the finished run (the same idempotency key: the same run). */
  run(
    context: ServiceCallContext,
    request: RunDataflowPackRequest,
    options: { timeoutMs?: number } = {},
  ): Promise<DataflowRunView> {
    return serviceRequest(this.endpoint, 'api/dataflow/runs', context, {
      method: 'POST',
      body: request,
      timeoutMs: options.timeoutMs ?? 120_000,
    });
  }

  /** One run; 404 unknown or another tenant's. */
  get(context: ServiceCallContext, runId: string): Promise<DataflowRunView> {
    return serviceRequest(this.endpoint, `api/dataflow/runs/${encodeURIComponent(runId)}`, context, {
      method: 'GET',
      timeoutMs: 10_000,
    });
  }
}
