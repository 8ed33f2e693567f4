// Runs of dataflow packs (issue 33): a run is claimed once per trigger (an ingestion batch, a
// workflow step, an on-demand key), reads the pack's declared inputs (incremental inputs only past
// their watermark), applies its transforms (JSONata per record in a bounded thread; SQL in the
// sandbox), writes their outputs, reconciles, and finishes in one transaction: result, breaks,
// hashed evidence of passes and failures, watermarks and the ledger's gtas_reconciliation event.
// Progress is saved after each transform and reconciliation, so a run whose process died is
// resumed from there by the next delivery of its trigger. A pack's problem (bad SQL, a looping
// expression, mismatched schemas) ends the run as `error` with its message and is the caller's
// 422; the service keeps serving.
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { assertScope } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { IngestionClient } from '../../platform/clients/ingestion.client';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import type { IngestionCompleted } from '../../platform/contracts/pipeline.events';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import { checksumDiff } from './checksum-diff';
import type { DataflowConfig } from './dataflow.config';
import type {
  BreakRow,
  DataflowPack,
  PackInput,
  ReconciliationResult,
  RunProgress,
  RunRecord,
  RunResult,
  StagedRecord,
} from './dataflow.types';
import type { DatasetStore } from './dataset.store';
import { evaluatePerRecord } from './jsonata.transform';
import type { PackSource } from './pack.source';
import { checkSchemas, fieldOf, matchDatasets } from './reconcile.match';
import type { BreakView, RunStore } from './run.store';
import { runSqlTransform } from './sql.transform';

export const GTAS_EVENT = 'gtas_reconciliation';
export const RUN_EVENT = 'dataflow_run_completed';

export interface DataflowCaller extends Caller {
  token?: string;
}

export interface RunTrigger {
  kind: 'ingestion' | 'workflow_step' | 'on_demand' | 'schedule';
  /** Idempotency: the same key for the same pack is the same run. */
  key: string;
  /** The ingestion batch that triggered it (kept in the evidence as the input manifest). */
  manifest?: IngestionCompleted;
}

export interface RunRequest {
  packId: string;
  version?: string;
  tenantId?: string;
  /** On demand: the caller's idempotency key (a fresh run without one). */
  idempotencyKey?: string;
  /** `workflow_step`: a workflow's dataflow step asks (the pack must declare that trigger; the key is required). */
  trigger?: 'on_demand' | 'workflow_step';
}

export interface RunDeps {
  runs: RunStore;
  datasets: DatasetStore;
  sql: SqlExecutor;
  packs: PackSource;
  access: TenantAccess;
  config: Pick<DataflowConfig, 'sqlTimeoutMs' | 'jsonataTimeoutMs' | 'jsonataHeapMb' | 'maxInputRecords'>;
  /** The ingestion service's staged records of a batch (landed into the batch's dataset before its packs run). */
  ingestion?: Pick<IngestionClient, 'allRecords'>;
  /** Called after a run commits: the bus events (dataflow.reconciliation_completed). */
  onFinished?: (run: RunRecord) => Promise<void>;
  /** Called after a run's progress or end commits: the subscriptions' wake-up (dataflow.run_changed). */
  onChanged?: (run: Pick<RunRecord, 'tenantId' | 'id' | 'status'>) => Promise<void>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const MAX_PAGE = 500;

export class DataflowService {
  constructor(private readonly deps: RunDeps) {}

  /** On demand (REST, GraphQL, the workflow step): runs a certified pack and answers with the finished run. */
  async run(caller: DataflowCaller, input: RunRequest, trigger?: Omit<RunTrigger, 'manifest'>): Promise<RunRecord> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenantId = await this.deps.access.resolve(caller, input.tenantId, ['tenantId'], 'dataflow.run');
    const context: ServiceCallContext = { token: caller.token, tenantId, correlationId: caller.correlationId };
    if (input.trigger === 'workflow_step' && !input.idempotencyKey)
      throw InputError.of(['idempotency_key'], 'A workflow step names its idempotency key', 'missing');
    const pack = await this.deps.packs.get(context, input.packId, input.version);
    if (input.trigger === 'workflow_step' && !pack.triggers.some((x) => x.type === 'workflow_step'))
      throw new ConflictError(`Pack '${input.packId}' does not declare a workflow_step trigger`);
    const t =
      trigger ??
      (input.trigger === 'workflow_step'
        ? { kind: 'workflow_step' as const, key: `workflow:${input.idempotencyKey!}` }
        : { kind: 'on_demand' as const, key: `demand:${input.idempotencyKey ?? randomUUID()}` });
    const done = await this.execute(tenantId, pack, t, auth.username, caller.correlationId);
    // The pack's own problem (bad SQL, a looping expression, mismatched schemas): recorded, and the caller's 422.
    if (done.status === 'error') throw InputError.of(['pack'], done.error ?? 'The run failed', 'dataflow_run_failed');
    return done;
  }

  /** An ingestion batch landed: every certified pack that triggers on its dataset runs once for it (filters apply). */
  async onIngestion(event: IngestionCompleted, correlationId: string): Promise<RunRecord[]> {
    const runs: RunRecord[] = [];
    const context = { tenantId: event.tenant_id, correlationId };
    const packs = await this.deps.packs.triggeredBy(context, event.dataset);
    let landed = false;
    for (const pack of packs) {
      const wanted = pack.triggers.some(
        (t) =>
          t.type === 'ingestion' &&
          t.dataset === event.dataset &&
          (!t.filter?.source_kind || t.filter.source_kind === event.source_kind) &&
          (!t.filter?.pipeline_id || t.filter.pipeline_id === event.pipeline_id) &&
          (t.filter?.min_records === undefined || event.records >= t.filter.min_records),
      );
      if (!wanted) continue;
      if (!landed) await this.land(context, event);
      landed = true;
      runs.push(
        await this.execute(
          event.tenant_id,
          pack,
          { kind: 'ingestion', key: `ingestion:${event.batch_id}`, manifest: event },
          null,
          correlationId,
        ),
      );
    }
    return runs;
  }

  /**
   * Copies the batch's staged records from the ingestion service into the dataset the packs read,
   * keyed `<batch_id>:<offset>` (a pack re-keys with a transform), page by page. Upserts, so a
   * redelivered event lands the same rows again without duplicates.
   */
  private async land(context: ServiceCallContext, event: IngestionCompleted): Promise<void> {
    if (!this.deps.ingestion) return;
    let page: StagedRecord[] = [];
    const flush = async () => {
      if (page.length > 0)
        await this.deps.datasets.stage(event.tenant_id, event.dataset, page, `ingestion:${event.batch_id}`);
      page = [];
    };
    try {
      for await (const r of this.deps.ingestion.allRecords(context, event.batch_id)) {
        page.push({ key: `${event.batch_id}:${r.offset}`, data: r.data });
        if (page.length >= 1000) await flush();
      }
    } catch (err) {
      // A batch the ingestion service does not hold (its records were staged here directly): nothing to land.
      if (err instanceof ServiceCallError && err.status === 404) return;
      throw err;
    }
    await flush();
  }

  /** A schedule's slot came (schedule.runner.ts): the pack runs once for it in its owner tenant. */
  async onSchedule(
    tenantId: string,
    pack: DataflowPack,
    triggerKey: string,
    correlationId: string,
  ): Promise<RunRecord> {
    return this.execute(tenantId, pack, { kind: 'schedule', key: triggerKey }, null, correlationId);
  }

  /** Loads records into a dataset (the ingestion service's landing, or a test's). */
  async stage(
    caller: Caller,
    input: { dataset: string; records: StagedRecord[]; tenantId?: string },
  ): Promise<{ dataset: string; staged: number }> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenantId = await this.deps.access.resolve(caller, input.tenantId, ['tenantId'], 'dataflow.stage');
    const staged = await this.deps.datasets.stage(tenantId, input.dataset, input.records, `staged:${auth.username}`);
    return { dataset: input.dataset, staged };
  }

  async getRun(caller: Caller, input: { runId: string; tenantId?: string }): Promise<RunRecord> {
    const tenantId = await this.reader(caller, input.tenantId, 'dataflow.runs.get');
    const run = await this.deps.runs.get(tenantId, input.runId);
    if (!run) throw new NotFoundError('Run not found');
    return run;
  }

  /** Entity batching: one read for many ids; null where a run is not visible. */
  async runsByIds(caller: Caller, ids: readonly string[]): Promise<(RunRecord | null)[]> {
    const tenantId = await this.reader(caller, undefined, 'dataflow.runs.get');
    const found = await this.deps.runs.byIds(tenantId, ids);
    return ids.map((id) => found.find((r) => r.id === id) ?? null);
  }

  async listRuns(
    caller: Caller,
    input: { packId?: string; limit?: number; before?: string; tenantId?: string },
  ): Promise<RunRecord[]> {
    const tenantId = await this.reader(caller, input.tenantId, 'dataflow.runs.list');
    return this.deps.runs.list(tenantId, { packId: input.packId, limit: pageSize(input.limit), before: input.before });
  }

  async breaks(
    caller: Caller,
    input: { runId: string; category?: string; limit?: number; after?: string; tenantId?: string },
  ): Promise<BreakView[]> {
    const run = await this.getRun(caller, input);
    if (input.after !== undefined && !/^\d{1,18}$/.test(input.after))
      throw InputError.of(['after'], 'Invalid cursor', 'value_error');
    return this.deps.runs.breaks(run.tenantId, run.id, {
      category: input.category,
      limit: pageSize(input.limit),
      afterSeq: input.after,
    });
  }

  async evidence(caller: Caller, input: { runId: string; tenantId?: string }) {
    const run = await this.getRun(caller, input);
    const found = await this.deps.runs.evidence(run.tenantId, run.id);
    if (!found) throw new NotFoundError('No evidence for this run yet');
    return { runId: run.id, ...found };
  }

  private async reader(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    if (caller.auth) assertScope(caller.auth, 'read');
    return this.deps.access.resolve(caller, requested, ['tenantId'], action);
  }

  /** Claims the run for the trigger (or finds it), then runs it unless it has already finished. */
  private async execute(
    tenantId: string,
    pack: DataflowPack,
    trigger: RunTrigger,
    actor: string | null,
    correlationId: string,
  ): Promise<RunRecord> {
    const { run } = await this.deps.runs.claim(tenantId, {
      id: `dfr_${Date.now().toString(36).padStart(9, '0')}_${randomUUID().slice(0, 8)}`,
      packId: pack.metadata.pack_id,
      packVersion: pack.metadata.version,
      triggerKey: trigger.key,
      triggerKind: trigger.kind,
      requestedBy: actor,
    });
    if (run.status !== 'running') return run;
    const done = await this.drive(run, pack, trigger, actor, correlationId);
    await this.deps.onFinished?.(done);
    await this.deps.onChanged?.(done);
    return done;
  }

  private async drive(
    run: RunRecord,
    pack: DataflowPack,
    trigger: RunTrigger,
    actor: string | null,
    correlationId: string,
  ): Promise<RunRecord> {
    const tenantId = run.tenantId;
    const progress = { ...run.progress };
    const datasets = new Map<string, StagedRecord[]>();
    const watermarks: Record<string, string> = {};
    const transformCounts: { name: string; records: number }[] = [];
    const results: ReconciliationResult[] = [...(progress.reconciliations ?? [])];
    const breaks: BreakRow[] = [];
    const gtas: Record<string, unknown>[] = [];
    const datasetOf = (name: string) => {
      const input = pack.inputs.find((i) => i.name === name);
      return input ? physicalName(pack, input) : `${pack.metadata.pack_id}.${name}`;
    };
    const load = async (name: string): Promise<StagedRecord[]> => {
      const cached = datasets.get(name);
      if (cached) return cached;
      const input = pack.inputs.find((i) => i.name === name);
      const after = input?.incremental ? await this.deps.runs.watermark(tenantId, pack.metadata.pack_id, name) : null;
      const rows = await this.deps.datasets.read(
        tenantId,
        datasetOf(name),
        after,
        this.deps.config.maxInputRecords + 1,
      );
      if (rows.length > this.deps.config.maxInputRecords)
        throw InputError.of(
          ['inputs', name],
          `Input '${name}' holds more than ${this.deps.config.maxInputRecords} records; use a checksum_diff reconciliation`,
        );
      if (input?.incremental && rows.length > 0) watermarks[name] = rows[rows.length - 1]!.seq;
      const records = rows.map(({ key, data }) => ({ key, data }));
      datasets.set(name, records);
      return records;
    };
    try {
      for (const [i, t] of (pack.transforms ?? []).entries()) {
        const loc = ['transforms', i];
        let out: StagedRecord[];
        if (t.type === 'jsonata') {
          const source = await load(t.input!);
          const values = await evaluatePerRecord(
            t.expression!,
            source.map((r) => r.data),
            { timeoutMs: this.deps.config.jsonataTimeoutMs, maxHeapMb: this.deps.config.jsonataHeapMb },
            loc,
          );
          out = values.flatMap((v, n) => {
            if (v === undefined || v === null) return [];
            if (typeof v !== 'object' || Array.isArray(v))
              throw InputError.of(loc, `Record ${n}: the expression must give an object`, 'jsonata_output');
            const key = t.key ? String(fieldOf(v as Record<string, unknown>, t.key) ?? '') : source[n]!.key;
            return [{ key, data: v as Record<string, unknown> }];
          });
        } else {
          const inputs: Record<string, StagedRecord[]> = {};
          for (const name of t.inputs ?? []) inputs[name] = await load(name);
          out = await runSqlTransform(
            this.deps.sql,
            { sql: t.sql!, params: t.params ?? [], inputs, timeoutMs: this.deps.config.sqlTimeoutMs },
            loc,
          );
        }
        if (!pack.outputs.some((o) => o.name === t.output))
          throw InputError.of([...loc, 'output'], `'${t.output}' is not one of the pack's declared outputs`);
        datasets.set(t.output, out);
        transformCounts.push({ name: t.name, records: out.length });
        if (!(progress.transforms_done ?? []).includes(t.name)) {
          await this.deps.datasets.stage(tenantId, datasetOf(t.output), out, run.id);
          progress.transforms_done = [...(progress.transforms_done ?? []), t.name];
          await this.saveProgress(run, progress);
        }
      }
      for (const [i, r] of (pack.reconciliations ?? []).entries()) {
        if (results.some((x) => x.name === r.name)) continue;
        const loc = ['reconciliations', i];
        let outcome;
        if (r.method === 'checksum_diff') {
          outcome = await checksumDiff(this.deps.datasets, tenantId, r, datasetOf(r.left), datasetOf(r.right));
        } else {
          const [left, right] = [await load(r.left), await load(r.right)];
          checkSchemas(r, left, right, loc);
          outcome = matchDatasets(r, left, right);
        }
        results.push(outcome.result);
        breaks.push(...outcome.rows);
        // Reported for progress only: a resumed run reconciles again, as its breaks are written at the finish.
        if (!(progress.reconciliations_done ?? []).includes(r.name)) {
          progress.reconciliations_done = [...(progress.reconciliations_done ?? []), r.name];
          await this.saveProgress(run, progress);
        }
        if (r.ledger_event === GTAS_EVENT)
          gtas.push(gtasData(run.id, outcome.result, outcome.rows, datasets.get(r.left), datasets.get(r.right)));
      }
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      return this.finishWith(run, pack, trigger, actor, correlationId, {
        error: err.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '),
        transformCounts,
        results,
        breaks: [],
        watermarks: {},
        gtas: [],
      });
    }
    return this.finishWith(run, pack, trigger, actor, correlationId, {
      error: null,
      transformCounts,
      results,
      breaks,
      watermarks,
      gtas,
    });
  }

  private async saveProgress(run: RunRecord, progress: RunProgress): Promise<void> {
    await this.deps.runs.saveProgress(run.tenantId, run.id, progress);
    await this.deps.onChanged?.({ tenantId: run.tenantId, id: run.id, status: 'running' });
  }

  private async finishWith(
    run: RunRecord,
    pack: DataflowPack,
    trigger: RunTrigger,
    actor: string | null,
    correlationId: string,
    o: {
      error: string | null;
      transformCounts: { name: string; records: number }[];
      results: ReconciliationResult[];
      breaks: BreakRow[];
      watermarks: Record<string, string>;
      gtas: Record<string, unknown>[];
    },
  ): Promise<RunRecord> {
    const outcome = o.results.some((r) => r.result === 'failed') ? 'failed' : 'passed';
    const status = o.error ? 'error' : outcome;
    // Evidence of passes and failures alike: what ran, on what, with which result.
    const content = {
      run_id: run.id,
      tenant_id: run.tenantId,
      pack: { pack_id: pack.metadata.pack_id, version: pack.metadata.version },
      trigger: { kind: trigger.kind, key: trigger.key },
      input_manifests: trigger.manifest ? [trigger.manifest] : [],
      lineage: {
        inputs: pack.inputs.map((i) => ({ namespace: `dataflow://${run.tenantId}`, name: physicalName(pack, i) })),
        outputs: pack.outputs.map((out) => ({
          namespace: `dataflow://${run.tenantId}`,
          name: `${pack.metadata.pack_id}.${out.name}`,
        })),
      },
      status,
      error: o.error,
      transforms: o.transformCounts,
      reconciliations: o.results,
      watermarks: o.watermarks,
    };
    const digest = sha256(canonicalize(content)!);
    const result: RunResult | null = o.error
      ? null
      : { outcome, transforms: o.transformCounts, reconciliations: o.results, evidence_sha256: digest };
    const events: AuditEventInput[] = [
      auditEvent(
        { correlationId },
        {
          tenantId: run.tenantId,
          type: RUN_EVENT,
          actor,
          data: {
            run_id: run.id,
            pack_id: pack.metadata.pack_id,
            pack_version: pack.metadata.version,
            status,
            evidence_sha256: digest,
          },
        },
      ),
    ];
    for (const data of o.gtas)
      events.push(auditEvent({ correlationId }, { tenantId: run.tenantId, type: GTAS_EVENT, actor, data }));
    return this.deps.runs.finish(run.tenantId, run.id, pack.metadata.pack_id, {
      status,
      result,
      error: o.error,
      breaks: o.breaks,
      evidence: { sha256: digest, content },
      watermarks: o.watermarks,
      events,
    });
  }
}

/**
 * The spec's gtas_reconciliation fields (spec 03) from a reconciliation of a trial balance (left:
 * account lines with `amount` and `trial_balance_id`) against voucher totals per account (right:
 * `amount` and `vouchers`, the count), plus the run it came from.
 */
function gtasData(
  runId: string,
  r: ReconciliationResult,
  rows: BreakRow[],
  left: StagedRecord[] | undefined,
  right: StagedRecord[] | undefined,
): Record<string, unknown> {
  const tbId = left?.map((l) => l.data.trial_balance_id).find((v) => typeof v === 'string');
  const voucherCount = (right ?? []).reduce((n, v) => n + (Number(v.data.vouchers ?? 1) || 0), 0);
  const total = (left ?? []).reduce((n, l) => n + (Number(l.data.amount) || 0), 0);
  return {
    trial_balance_id: tbId ?? `run:${runId}`,
    voucher_count: voucherCount,
    total_amount: Math.round(total * 100) / 100,
    discrepancies: rows.slice(0, 100).map((b) => ({
      account: b.key,
      category: b.category,
      ...(b.detail.failures ? { failures: b.detail.failures } : {}),
    })),
    run_id: runId,
    result: r.result,
  };
}

function physicalName(pack: DataflowPack, input: PackInput): string {
  if (input.source === 'pack_output') return `${input.pack_id}.${input.output}`;
  if (input.source === 'platform_view') return `platform.${input.view}`;
  return input.dataset ?? input.name;
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined) return 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw InputError.of(['limit'], `Input should be between 1 and ${MAX_PAGE}`, 'value_error');
  return limit;
}
