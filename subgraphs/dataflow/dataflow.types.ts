// DataFlow's domain types (issue 33), shared by the runner, the stores and both doors: the
// dataflow pack as platform/contracts/dataflow-pack.schema.json defines it, staged records, runs,
// reconciliation results and breaks.

export interface DataflowPack {
  kind: 'dataflow';
  metadata: { pack_id: string; version: string; name: string; description?: string };
  inputs: PackInput[];
  transforms?: PackTransform[];
  reconciliations?: PackReconciliation[];
  outputs: { name: string; description?: string }[];
  triggers: PackTrigger[];
}

export interface PackInput {
  name: string;
  source: 'dataset' | 'pack_output' | 'platform_view';
  dataset?: string;
  pack_id?: string;
  output?: string;
  view?: 'ledger_events';
  incremental?: boolean;
}

export interface PackTransform {
  name: string;
  type: 'jsonata' | 'sql';
  input?: string;
  expression?: string;
  inputs?: string[];
  sql?: string;
  params?: (string | number | boolean | null)[];
  output: string;
  key?: string;
}

export type CompareRule = 'exact' | 'amount' | 'date' | 'fuzzy';

export interface CompareSpec {
  left: string;
  right?: string;
  rule: CompareRule;
  tolerance?: number;
  days?: number;
  threshold?: number;
}

export interface PackReconciliation {
  name: string;
  left: string;
  right: string;
  method?: 'match' | 'checksum_diff';
  left_key?: string;
  right_key?: string;
  compare?: CompareSpec[];
  pii?: string[];
  sample_size?: number;
  amount_field?: string;
  ledger_event?: 'gtas_reconciliation';
}

export interface PackTrigger {
  type: 'ingestion' | 'workflow_step' | 'schedule' | 'on_demand';
  dataset?: string;
  filter?: { source_kind?: string; pipeline_id?: string; min_records?: number };
  cron?: string;
}

/** One staged record: its key within the dataset and its JSON object. */
export interface StagedRecord {
  key: string;
  data: Record<string, unknown>;
}

export type BreakCategory = 'unmatched_left' | 'unmatched_right' | 'break';

/** Counts and totals per category, with a few masked sample rows. */
export interface CategoryReport {
  count: number;
  total: number;
  samples: Record<string, unknown>[];
}

export interface ReconciliationResult {
  name: string;
  method: 'match' | 'checksum_diff';
  result: 'passed' | 'failed';
  matched: CategoryReport;
  unmatched_left: CategoryReport;
  unmatched_right: CategoryReport;
  breaks: CategoryReport;
  /** checksum_diff: the key ranges whose checksums differed, down to the leaves compared row by row. */
  differing_ranges?: { from: string | null; to: string | null; rows: number }[];
  /** checksum_diff by maintained cells: the cells (16-bit hash of the key) whose sums differed, and their rows. */
  differing_cells?: { cell: number; rows: number }[];
  /** checksum_diff: how many rows were compared one by one (the rest were settled by checksums). */
  rows_compared?: number;
}

/** A break or an unmatched record, as stored and shown (values masked where the pack says PII). */
export interface BreakRow {
  reconciliation: string;
  category: BreakCategory;
  key: string;
  detail: Record<string, unknown>;
}

export type RunStatus = 'running' | 'passed' | 'failed' | 'error';

export interface RunRecord {
  id: string;
  tenantId: string;
  packId: string;
  packVersion: string;
  triggerKey: string;
  triggerKind: string;
  status: RunStatus;
  progress: RunProgress;
  result: RunResult | null;
  error: string | null;
  requestedBy: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

/** How far a run got: a resumed run skips the transforms and reconciliations already done. */
export interface RunProgress {
  transforms_done?: string[];
  /** The reconciliations this drive finished (progress reports; they run again on resume). */
  reconciliations_done?: string[];
  reconciliations?: ReconciliationResult[];
  watermarks?: Record<string, string>;
}

export interface RunResult {
  outcome: 'passed' | 'failed';
  transforms: { name: string; records: number }[];
  reconciliations: ReconciliationResult[];
  evidence_sha256: string;
}
