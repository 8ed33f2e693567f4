// The core path of a batch: a spooled source read record by record (record-reader.ts), each
// record normalised by the pipeline's mapping and checked against its target schema
// (normaliser.ts), scrubbed by its PII policy (pii-scrubber.ts), then staged with its lineage
// (source, batch, offset), or quarantined with the reason. Chunks of `batch_size` records commit
// with their checkpoint (batch.store.ts), so a batch cut short resumes after its last committed
// record when the same content is sent again, and each record lands once. One chunk commits while
// the next is read and normalised (the database and this process work at once); chunks still
// commit one after the other, each moving the checkpoint from where the previous one left it. A source whose
// columns differ from the last batch's is quarantined whole, and a person is asked to approve the
// new columns (schema-change.service.ts), instead of being guessed at. The end writes the manifest to the ledger and `ingestion.completed` or
// `ingestion.failed` to the events backbone, in the transaction that ends the batch.
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { setImmediate as turnOfTheEventLoop } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Caller } from '../../platform/auth/caller';
import { INGESTION_COMPLETED, INGESTION_FAILED } from '../../platform/contracts/pipeline.events';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-errors';
import { pendingNotice } from '../../platform/outbox/notice.writer';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import type { BatchStore, Chunk } from './batch.store';
import type { BatchTableStore } from './batch-table.store';
import { ColumnChecksums } from './column-checksums';
import { INGESTION_BATCH_EVENT } from './ingestion.audit';
import { inputDataset, outputDataset, runEvent } from './lineage';
import { compileNormaliser, type Normaliser } from './normaliser';
import { piiScrubber, tenantPiiKey, type Scrub } from './pii-scrubber';
import type { PipelineService } from './pipeline.service';
import type { PipelineStore } from './pipeline.store';
import type {
  Batch,
  BatchManifest,
  IngestionCaller,
  IngestionLimits,
  LineageEvent,
  Pipeline,
  PipelineDefinition,
  QuarantinedRecord,
  SchemaChange,
  StagedRecord,
} from './pipeline.types';
import { peek, readRecords, SourceFormatError } from './record-reader';
import { csvCopySource } from './csv-copy-source';
import { csvBatchRows } from './csv-batch-rows';
import type { ColumnDrift, SchemaChangeService } from './schema-change.service';
import { spool, type Spooled } from './spool';

const DEFAULT_BATCH_SIZE = 10_000;
/** A chunk is committed at this many bytes of staged JSON even when short of `batch_size` (memory stays bounded). */
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
/** Staged rows read back a page at a time when a resumed batch rebuilds its column checksums. */
const RESUME_PAGE = 5000;

/** The crash test's hold (NODE_ENV=test only, see ingestion.config.ts): waits for a file to appear. */
async function stallUntil(file: string): Promise<void> {
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 50));
}
const driftReason = (d: ColumnDrift) =>
  `source schema changed: added [${d.added.join(', ')}], removed [${d.removed.join(', ')}]; a reviewer approves the change (its approval task), or a new pipeline version does`.slice(
    0,
    2000,
  );
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A reader without runs gives its records one at a time. */
async function* oneByOne<T>(records: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const r of records) yield [r];
}

export class BatchService {
  private readonly normalisers = new Map<string, Normaliser>();

  constructor(
    private readonly deps: {
      pipelines: PipelineService;
      pipelineStore: PipelineStore;
      store: BatchStore;
      /** A plain CSV batch staged whole into its own table (null on PGlite, or with INGESTION_CSV_VIA_COPY=false). */
      batchTables?: BatchTableStore | null;
      /** Approvals of source schema changes (absent: a new pipeline version is the only approval). */
      schemaChanges?: SchemaChangeService;
      limits: IngestionLimits;
      /** The secret tenants' PII keys are derived from (INGESTION_PII_SECRET). */
      piiSecret: string;
      spoolDir?: string;
      /** Tests only: hold a batch after this many committed chunks until the file exists. */
      testStall?: { afterChunks: number; untilFile: string };
    },
  ) {}

  get limits(): IngestionLimits {
    return this.deps.limits;
  }

  /** A source pushed by a caller (REST push): spooled, then ingested as one batch. */
  async push(
    caller: IngestionCaller,
    pipelineId: string,
    input: { stream: Readable; sourceName: string; tenantId?: string },
  ): Promise<Batch> {
    const tenantId = await this.deps.pipelines.tenant(caller, input.tenantId, 'push to an ingestion pipeline', true);
    const pipeline = await this.pipeline(tenantId, pipelineId);
    const spooled = await spool(input.stream, this.deps.limits.maxBytes, this.deps.spoolDir);
    try {
      return await this.ingest(caller, tenantId, pipeline, spooled, input.sourceName);
    } finally {
      await spooled.release();
    }
  }

  /**
   * A spooled source for a pipeline of the tenant's (the connectors call this): a new batch, the
   * rest of an interrupted one, or the completed batch of the same content (nothing lands twice).
   */
  async ingest(
    caller: IngestionCaller,
    tenantId: string,
    pipeline: Pipeline,
    source: Spooled,
    sourceName: string,
    options: { format?: PipelineDefinition['format'] } = {},
  ): Promise<Batch> {
    const inputs = [inputDataset(tenantId, pipeline.definition, sourceName)];
    const outputs = [outputDataset(tenantId, pipeline.definition)];
    const opened = await this.deps.store.open(
      tenantId,
      { pipelineId: pipeline.id, pipelineVersion: pipeline.version, sourceName, contentSha256: source.sha256 },
      (runId) => runEvent({ eventType: 'START', tenantId, pipelineName: pipeline.name, runId, inputs, outputs }),
    );
    let batch = opened.batch;
    // Quarantined for a schema change a person has since approved: the same batch, a new run.
    if (
      batch.status === 'quarantined' &&
      this.deps.schemaChanges &&
      (await this.deps.schemaChanges.forBatch(tenantId, batch.id))?.status === 'approved'
    ) {
      const reopened = await this.deps.store.reopen(tenantId, batch, pipeline.version, (runId) =>
        runEvent({ eventType: 'START', tenantId, pipelineName: pipeline.name, runId, inputs, outputs }),
      );
      batch = reopened ?? batch;
    }
    if (batch.status !== 'running') return batch;
    // A batch resumed under a later version of the pipeline finishes with the version it began with.
    if (batch.pipelineVersion !== pipeline.version) {
      const began = await this.deps.pipelineStore.version(tenantId, pipeline.id, batch.pipelineVersion);
      if (began)
        pipeline = {
          ...pipeline,
          version: began.version,
          definition: began.definition,
          definitionSha256: began.definitionSha256,
        };
    }
    const definition = pipeline.definition;
    const normaliser = this.normaliser(pipeline);
    const scrub = piiScrubber(definition.pii?.fields, tenantPiiKey(this.deps.piiSecret, tenantId));
    const size = definition.batch_size ?? DEFAULT_BATCH_SIZE;
    const resumeFrom = opened.committedOffset;
    let columns: string[] = [];
    const checksums = new ColumnChecksums();
    const fresh = (from: number): Chunk & { bytes: number } => ({
      staged: [],
      quarantined: [],
      from,
      to: from,
      bytes: 0,
    });
    let chunk = fresh(resumeFrom);
    const progress = { ...batch };
    let chunks = 0;
    // The chunk being committed while the next is built (at most one: memory holds two chunks).
    let inFlight: Promise<void> | null = null;
    const settle = async () => {
      const p = inFlight;
      inFlight = null;
      if (p) await p;
    };
    const flush = async () => {
      if (chunk.to === chunk.from) return;
      await settle();
      const c = chunk;
      chunk = fresh(c.to);
      checksums.fold();
      inFlight = this.deps.store.commitChunk(tenantId, batch, definition.target.dataset, c).then(async () => {
        progress.rowsRead = c.to;
        progress.rowsStaged += c.staged.length;
        progress.rowsQuarantined += c.quarantined.length;
        if (++chunks === this.deps.testStall?.afterChunks) await stallUntil(this.deps.testStall.untilFile);
      });
      // Awaited by the next flush or the end; marked handled so a failure waits for it without a warning.
      inFlight.catch(() => {});
    };
    const end = (status: Batch['status'], error: string | null, manifest: BatchManifest | null) =>
      this.deps.store.end(tenantId, batch, {
        status,
        error,
        manifest,
        sourceColumns: status === 'completed' && columns.length > 0 ? columns : null,
        audit: manifest
          ? auditEvent(caller, {
              tenantId,
              type: INGESTION_BATCH_EVENT,
              actor: caller.auth?.username ?? null,
              data: { ...manifest },
            })
          : null,
        notice:
          status === 'completed'
            ? pendingNotice(
                'ingestion',
                INGESTION_COMPLETED,
                {
                  tenant_id: tenantId,
                  pipeline_id: pipeline.id,
                  pipeline_version: batch.pipelineVersion,
                  run_id: batch.runId,
                  batch_id: batch.id,
                  dataset: definition.target.dataset,
                  source_kind: definition.source.kind,
                  records: manifest!.row_count,
                  rejected: manifest!.rejected,
                  content_sha256: source.sha256,
                  schema_version:
                    typeof definition.target.schema.$id === 'string' ? definition.target.schema.$id : null,
                  lineage: { inputs, outputs },
                  at: new Date().toISOString(),
                },
                { tenantId, subject: `ingestion-batch/${batch.id}` },
              )
            : pendingNotice(
                'ingestion',
                INGESTION_FAILED,
                {
                  tenant_id: tenantId,
                  pipeline_id: pipeline.id,
                  pipeline_version: batch.pipelineVersion,
                  run_id: batch.runId,
                  batch_id: batch.id,
                  dataset: definition.target.dataset,
                  source_kind: definition.source.kind,
                  status: status === 'quarantined' ? 'quarantined' : 'failed',
                  reason: (error ?? '').slice(0, 2000),
                  records: progress.rowsStaged,
                  at: new Date().toISOString(),
                },
                { tenantId, subject: `ingestion-batch/${batch.id}` },
              ),
        lineage: runEvent({
          eventType: status === 'completed' ? 'COMPLETE' : 'FAIL',
          tenantId,
          pipelineName: pipeline.name,
          runId: batch.runId,
          inputs,
          outputs,
          facets:
            status === 'completed'
              ? { rowCount: manifest!.row_count, rejected: manifest!.rejected }
              : { errorMessage: { message: error } },
        }),
      });
    try {
      const read = await readRecords(
        source.open,
        options.format ?? definition.format,
        this.deps.limits,
        definition.source.pagination?.items_field,
        source.path,
      );
      columns = read.columns;
      let first = true;
      // A CSV on PostgreSQL is staged whole by the server when it can be (not a resumed batch: its
      // prefix was staged record by record, and the rest follows the same way).
      const copied =
        resumeFrom === 0
          ? await this.stageWhole(
              tenantId,
              batch,
              pipeline,
              source,
              options.format ?? definition.format,
              normaliser,
              scrub,
            )
          : null;
      if (copied) {
        columns = copied.columns;
        progress.rowsRead = copied.rows;
        progress.rowsStaged += copied.rows;
        first = false;
      }
      if (resumeFrom > 0) await this.foldStaged(tenantId, batch.id, checksums);
      for await (const run of copied ? [] : (read.batches ?? oneByOne(read.records))) {
        for (const r of run) {
          if (first) {
            first = false;
            if (columns.length === 0) columns = Object.keys(r.record).sort();
            const drift = await this.drift(tenantId, pipeline.id, columns);
            if (drift) {
              batch = await end('quarantined', driftReason(drift), null);
              await this.deps.schemaChanges?.request(caller, batch, pipeline, columns, drift);
              return batch;
            }
          }
          if (r.offset < resumeFrom) continue;
          const n = normaliser.normaliseNow(r.record) ?? (await normaliser.normalise(r.record));
          if (n.ok) {
            const data = scrub(n.record);
            const json = JSON.stringify(data);
            chunk.staged.push({ offset: r.offset, json });
            chunk.bytes += json.length;
            checksums.add(data);
          } else
            chunk.quarantined.push({
              offset: r.offset,
              reason: n.reason,
              record: n.record ? scrub(n.record) : null,
              rawSha256: r.rawSha256,
            });
          chunk.to = r.offset + 1;
          if (chunk.staged.length + chunk.quarantined.length >= size || chunk.bytes >= MAX_CHUNK_BYTES) await flush();
        }
        // A run is parsed and normalised without giving the event loop a turn; the chunk committing
        // meanwhile needs turns for its socket (its COPY data and the server's answer), so one is given a run.
        if (inFlight) await turnOfTheEventLoop();
      }
      await flush();
      await settle();
      const manifest: BatchManifest = {
        run_id: batch.runId,
        batch_id: batch.id,
        pipeline_id: pipeline.id,
        pipeline_version: batch.pipelineVersion,
        dataset: definition.target.dataset,
        row_count: progress.rowsStaged,
        rejected: progress.rowsQuarantined,
        content_sha256: source.sha256,
        schema_hash: sha256(canonicalize({ target: definition.target.schema, columns }) ?? ''),
        column_checksums: copied ? copied.checksums : checksums.digest(),
      };
      batch = await end('completed', null, manifest);
      return batch;
    } catch (err) {
      // A chunk still committing finishes (or fails) before the batch's end is written.
      const committing = await settle().then(
        () => null,
        (e: unknown) => e,
      );
      // Lost to another runner: it owns the batch's end.
      if (err instanceof ConflictError) throw err;
      if (committing instanceof ConflictError) throw committing;
      const reason = err instanceof SourceFormatError ? err.issues[0]!.msg : (err as Error).message;
      batch = await end('failed', reason, null).catch(() => batch);
      throw err;
    }
  }

  async batch(caller: Caller, id: string, requestedTenant?: string): Promise<Batch> {
    const tenantId = await this.deps.pipelines.tenant(caller, requestedTenant, 'read an ingestion batch');
    const found = await this.deps.store.get(tenantId, id);
    if (!found) throw new NotFoundError('Batch not found');
    return found;
  }

  /** The source schema change a batch met (404 when it met none), its decision read from the workflow. */
  async schemaChange(caller: Caller, batchId: string, requestedTenant?: string): Promise<SchemaChange> {
    const batch = await this.batch(caller, batchId, requestedTenant);
    const found = await this.deps.schemaChanges?.forBatch(batch.tenantId, batch.id);
    if (!found) throw new NotFoundError('This batch met no source schema change');
    return found;
  }

  /** A pipeline's source schema changes, newest first. */
  async schemaChanges(
    caller: Caller,
    pipelineId: string,
    requestedTenant?: string,
    limit = 50,
  ): Promise<SchemaChange[]> {
    const tenantId = await this.deps.pipelines.tenant(caller, requestedTenant, 'list source schema changes');
    await this.pipeline(tenantId, pipelineId);
    return this.deps.schemaChanges?.list(tenantId, pipelineId, Math.min(Math.max(limit, 1), 500)) ?? [];
  }

  async batches(caller: Caller, pipelineId: string, requestedTenant?: string, limit = 50): Promise<Batch[]> {
    const tenantId = await this.deps.pipelines.tenant(caller, requestedTenant, 'list ingestion batches');
    await this.pipeline(tenantId, pipelineId);
    return this.deps.store.list(tenantId, pipelineId, Math.min(Math.max(limit, 1), 500));
  }

  /** A pipeline's batches, newest first, for a connector of this service (no caller: the connector is the service). */
  recent(tenantId: string, pipelineId: string, limit: number): Promise<Batch[]> {
    return this.deps.store.list(tenantId, pipelineId, limit);
  }

  async quarantine(
    caller: Caller,
    batchId: string,
    requestedTenant?: string,
    limit = 100,
  ): Promise<QuarantinedRecord[]> {
    const batch = await this.batch(caller, batchId, requestedTenant);
    return this.deps.store.quarantine(batch.tenantId, batch.id, Math.min(Math.max(limit, 1), 1000));
  }

  async records(
    caller: Caller,
    batchId: string,
    opts: { tenantId?: string; after?: number; limit?: number } = {},
  ): Promise<StagedRecord[]> {
    const batch = await this.batch(caller, batchId, opts.tenantId);
    return this.deps.store.staged(
      batch.tenantId,
      batch.id,
      opts.after ?? -1,
      Math.min(Math.max(opts.limit ?? 100, 1), 1000),
    );
  }

  async lineage(caller: Caller, batchId: string, requestedTenant?: string): Promise<LineageEvent[]> {
    const batch = await this.batch(caller, batchId, requestedTenant);
    return this.deps.store.lineage(batch.tenantId, batch.runId);
  }

  private async pipeline(tenantId: string, id: string): Promise<Pipeline> {
    const found = await this.deps.pipelineStore.get(tenantId, id);
    if (!found) throw new NotFoundError('Pipeline not found');
    return found;
  }

  /**
   * The batch staged in one transaction into a table of its own (batch-table.store.ts): this
   * process reads, maps and scrubs the CSV (csv-batch-rows.ts) while PostgreSQL writes the rows it
   * has sent. Null when it goes record by record: not PostgreSQL, not a plain CSV (csv-copy-source.ts),
   * a source schema change (the record path quarantines it), or a record the record path would
   * quarantine (rolled back whole).
   */
  private async stageWhole(
    tenantId: string,
    batch: Batch,
    pipeline: Pipeline,
    source: Spooled,
    format: PipelineDefinition['format'],
    normaliser: Normaliser,
    scrub: Scrub,
  ): Promise<{ rows: number; checksums: Record<string, string>; columns: string[] } | null> {
    const staging = this.deps.batchTables;
    if (!staging || format.type !== 'csv') return null;
    const csv = csvCopySource(source.open, await peek(source.open(), 64 * 1024), format, this.deps.limits);
    if (!csv || (await this.drift(tenantId, pipeline.id, csv.columns))) return null;
    const stall = this.deps.testStall;
    const checksums = new ColumnChecksums();
    try {
      const rows = await staging.stage(
        tenantId,
        batch,
        csvBatchRows(csv, normaliser, scrub, checksums),
        stall
          ? async () => {
              // The crash test's hold, inside the transaction: it says where it is, then waits.
              fs.writeFileSync(`${stall.untilFile}.held`, '');
              await stallUntil(stall.untilFile);
            }
          : undefined,
      );
      return { rows, checksums: checksums.digest(), columns: csv.columns };
    } catch (err) {
      if (err instanceof ConflictError) throw err;
      // Declined or failed (a quarantined record, a malformed one): nothing was written; the record path answers.
      return null;
    }
  }

  /** A resumed batch's checksums start from the rows staged before its checkpoint, in offset order. */
  private async foldStaged(tenantId: string, batchId: string, checksums: ColumnChecksums): Promise<void> {
    for (let after = -1; ;) {
      const page = await this.deps.store.staged(tenantId, batchId, after, RESUME_PAGE);
      for (const row of page) checksums.add(row.data);
      checksums.fold();
      if (page.length < RESUME_PAGE) return;
      after = page[page.length - 1]!.offset;
    }
  }

  /**
   * How a source's columns differ from the ones the pipeline accepted (its last completed batch's,
   * or a person's approval), or null: columns a person approved are accepted here.
   */
  private async drift(tenantId: string, pipelineId: string, columns: string[]): Promise<ColumnDrift | null> {
    const before = await this.deps.pipelineStore.sourceColumns(tenantId, pipelineId);
    if (!before) return null;
    const added = columns.filter((c) => !before.includes(c));
    const removed = before.filter((c) => !columns.includes(c));
    if (added.length === 0 && removed.length === 0) return null;
    if (await this.deps.schemaChanges?.approved(tenantId, pipelineId, columns)) return null;
    return { added, removed };
  }

  private normaliser(pipeline: Pipeline): Normaliser {
    const key = `${pipeline.id}:${pipeline.version}`;
    let n = this.normalisers.get(key);
    if (!n) {
      n = compileNormaliser(pipeline.definition);
      if (this.normalisers.size > 500) this.normalisers.clear();
      this.normalisers.set(key, n);
    }
    return n;
  }
}
