// DataFlow's API as other services call it, in wire names: the request and response types of
// platform/clients/dataflow.client.ts (rest-compat/dataflow/dataflow.schemas.ts serves them).

export type DataflowRunStatus = 'running' | 'passed' | 'failed' | 'error';

export interface RunDataflowPackRequest {
  pack_id: string;
  version?: string;
  /** The same key runs the pack once (a workflow step sends its execution and step). */
  idempotency_key?: string;
  tenant_id?: string;
  /** `workflow_step` (a workflow's dataflow step): the pack must declare that trigger, and the key is required. */
  trigger?: 'on_demand' | 'workflow_step';
}

export interface DataflowCategoryView {
  count: number;
  total: number;
  samples: Record<string, unknown>[];
}

export interface DataflowReconciliationView {
  name: string;
  method: 'match' | 'checksum_diff';
  result: 'passed' | 'failed';
  matched: DataflowCategoryView;
  unmatched_left: DataflowCategoryView;
  unmatched_right: DataflowCategoryView;
  breaks: DataflowCategoryView;
}

export interface DataflowRunView {
  run_id: string;
  tenant_id: string;
  pack_id: string;
  pack_version: string;
  trigger_kind: string;
  trigger_key: string;
  status: DataflowRunStatus;
  error: string | null;
  result: {
    outcome: 'passed' | 'failed';
    transforms: { name: string; records: number }[];
    reconciliations: DataflowReconciliationView[];
    evidence_sha256: string;
  } | null;
  requested_by: string | null;
  started_at: string;
  finished_at: string | null;
}
