// PostgreSQL logical replication for one postgres_cdc pipeline (pgoutput through
// pg-logical-replication). First a consistent snapshot: the slot is created with an exported
// snapshot, and the table is read in that snapshot, so the stream starts exactly where the
// snapshot ends (nothing twice, nothing missed). Then the stream: whole transactions are
// collected and, every `batch_size` changes or INGESTION_CDC_FLUSH_MS, ingested as one batch named
// `wal:<first>-<end LSN>`; only after that batch is committed is the slot acknowledged (a batch
// whose staging fails is sent again, as the same batch, before anything after it). One batch is
// staged at a time: changes that come meanwhile go as the next batch the moment it lands (when
// they are due), so under load the batches grow instead of queueing behind each other. The
// position is kept per pipeline twice over: in the slot (confirmed_flush_lsn) and in the last
// completed batch's name, so changes replayed after a crash at or below it are skipped. Heartbeats:
// when nothing is pending, the server's keepalive position is acknowledged every
// INGESTION_CDC_HEARTBEAT_MS, so a quiet table cannot hold WAL back and fill the disk.
// Each record is `{_op, _lsn, ...every column}` (columns the change lacks are null), so the
// batch's schema check sees the table's columns, and a changed table quarantines the batch.
import { Readable } from 'node:stream';
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { InputError } from '../../platform/errors/domain-errors';
import type { Logger } from '../../platform/logging/logger';
import type { Batch, Pipeline, PipelineDefinition } from './pipeline.types';
import { spool, type Spooled } from './spool';

export interface CdcSink {
  /** Ingests a spooled NDJSON source as a batch of the pipeline. */
  ingest(pipeline: Pipeline, source: Spooled, sourceName: string): Promise<Batch>;
  /** The pipeline's batches, newest first (to find the snapshot and the last position). */
  recent(pipeline: Pipeline): Promise<Batch[]>;
}

export interface CdcOptions {
  password?: string;
  maxBytes: number;
  spoolDir?: string;
  flushMs: number;
  heartbeatMs: number;
  logger: Pick<Logger, 'warn' | 'info'>;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const quote = (i: string) => `"${i}"`;
const WAL = /^wal:[0-9A-F]+\/[0-9A-F]+-([0-9A-F]+\/[0-9A-F]+)$/;

export const lsnValue = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(parseInt(hi!, 16)) << 32n) + BigInt(parseInt(lo!, 16));
};

/** The slot and publication of a pipeline: named by its id, so a deleted pipeline's can be found. */
export const slotName = (pipelineId: string) => `ingestion_${pipelineId.replace(/-/g, '')}`;

export function captured(definition: PipelineDefinition): { schema: string; table: string } {
  const parts = (definition.source.table ?? '').split('.');
  const [schema, table] = parts.length === 1 ? ['public', parts[0]!] : parts;
  if (parts.length > 2 || !IDENT.test(schema ?? '') || !IDENT.test(table ?? '')) {
    throw InputError.of(['definition', 'source', 'table'], 'a captured table is schema.table of plain identifiers');
  }
  return { schema: schema!, table: table! };
}

export function connectionOf(definition: PipelineDefinition, password?: string): pg.ClientConfig {
  const s = definition.source;
  if (!s.host || !s.database) {
    throw InputError.of(['definition', 'source'], 'a postgres_cdc source names its host and database');
  }
  return {
    host: s.host,
    port: s.port ?? 5432,
    database: s.database,
    user: s.username,
    password,
    connectionTimeoutMillis: 10_000,
  };
}

/** Changes staged together as one batch named by their first and end LSN. */
interface WalLot {
  rows: Record<string, unknown>[];
  name: string;
  end: string;
}

/** A failed WAL batch is sent again after 1 s, doubling to at most 30 s. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

export class CdcRunner {
  private service?: LogicalReplicationService;
  private pending: Record<string, unknown>[] = [];
  private txn: Record<string, unknown>[] | null = null;
  private firstLsn?: string;
  private endLsn?: string;
  private applied = 0n;
  private serverLsn?: string;
  private flushing: Promise<void> = Promise.resolve();
  private inFlight = false;
  /** The pending changes fell due (flush interval or batch_size) while a batch was in flight. */
  private due = false;
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  private stopped = false;
  /**
   * A WAL batch whose staging failed (the database unreachable): sent again, as the same batch
   * (same name, same content: it resumes from its checkpoint, so no row lands twice), before
   * anything that came after it, and nothing is acknowledged meanwhile.
   */
  private failed?: WalLot;
  private failures = 0;
  private retryAt = 0;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    readonly pipeline: Pipeline,
    private readonly sink: CdcSink,
    private readonly options: CdcOptions,
  ) {}

  async start(): Promise<void> {
    const config = connectionOf(this.pipeline.definition, this.options.password);
    const { schema, table } = captured(this.pipeline.definition);
    const slot = slotName(this.pipeline.id);
    const admin = new pg.Client(config);
    await admin.connect();
    try {
      const pub = await admin.query('SELECT 1 FROM pg_publication WHERE pubname = $1', [slot]);
      if (pub.rowCount === 0)
        await admin.query(`CREATE PUBLICATION ${slot} FOR TABLE ${quote(schema)}.${quote(table)}`);
      const recent = await this.sink.recent(this.pipeline);
      const snapshotDone = recent.some((b) => b.sourceName.startsWith('snapshot@') && b.status === 'completed');
      const exists = await admin.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [slot]);
      // A slot without a completed snapshot (a crash mid-snapshot) cannot give that snapshot again: begin anew.
      if (exists.rowCount !== 0 && !snapshotDone) await admin.query('SELECT pg_drop_replication_slot($1)', [slot]);
      if (exists.rowCount === 0 || !snapshotDone) await this.snapshot(config, slot, schema, table);
      const last = (await this.sink.recent(this.pipeline))
        .filter((b) => b.status === 'completed')
        .map((b) => WAL.exec(b.sourceName)?.[1])
        .find((x): x is string => x !== undefined);
      this.applied = last ? lsnValue(last) : 0n;
    } finally {
      await admin.end().catch(() => undefined);
    }
    if (this.stopped) return;
    this.service = new LogicalReplicationService(config, {
      acknowledge: { auto: false, timeoutSeconds: 0 },
    });
    this.service.on('data', (lsn: string, message: Pgoutput.Message) => this.onMessage(lsn, message));
    this.service.on('heartbeat', (lsn: string, _ts: number, shouldRespond: boolean) => {
      this.serverLsn = lsn;
      if (shouldRespond) void this.beat();
    });
    this.service.on('error', (err: Error) =>
      this.options.logger.warn({ pipelineId: this.pipeline.id, err: err.message }, 'ingestion: replication error'),
    );
    this.heartbeat = setInterval(() => void this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
    void this.service
      .subscribe(new PgoutputPlugin({ protoVersion: 1, publicationNames: [slot] }), slot)
      .catch((err: Error) =>
        this.options.logger.warn({ pipelineId: this.pipeline.id, err: err.message }, 'ingestion: replication stopped'),
      );
  }

  /** Stops streaming; what was committed stays acknowledged, what was pending is sent again later. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    await this.flushing;
    await this.service?.destroy().catch(() => undefined);
  }

  /** Reads the table in the slot's exported snapshot: the batch the stream continues from. */
  private async snapshot(config: pg.ClientConfig, slot: string, schema: string, table: string): Promise<void> {
    const repl = new pg.Client({ ...config, replication: 'database' } as pg.ClientConfig);
    await repl.connect();
    try {
      const created = await repl.query(`CREATE_REPLICATION_SLOT ${slot} LOGICAL pgoutput EXPORT_SNAPSHOT`);
      const { consistent_point: point, snapshot_name: snapshotName } = created.rows[0] as {
        consistent_point: string;
        snapshot_name: string;
      };
      const reader = new pg.Client(config);
      await reader.connect();
      try {
        await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await reader.query(`SET TRANSACTION SNAPSHOT '${snapshotName.replace(/'/g, '')}'`);
        await reader.query(`DECLARE snap NO SCROLL CURSOR FOR SELECT * FROM ${quote(schema)}.${quote(table)}`);
        const pages = async function* (): AsyncGenerator<string> {
          for (;;) {
            const res = await reader.query('FETCH 1000 FROM snap');
            if (res.rows.length === 0) return;
            yield res.rows.map((r) => JSON.stringify({ _op: 'snapshot', _lsn: point, ...r })).join('\n') + '\n';
          }
        };
        const spooled = await spool(Readable.from(pages()), this.options.maxBytes, this.options.spoolDir);
        await reader.query('COMMIT');
        try {
          await this.sink.ingest(this.pipeline, spooled, `snapshot@${point}`);
        } finally {
          await spooled.release();
        }
      } finally {
        await reader.end().catch(() => undefined);
      }
    } finally {
      await repl.end().catch(() => undefined);
    }
  }

  private onMessage(lsn: string, m: Pgoutput.Message): void {
    if (m.tag === 'begin') {
      this.txn = [];
      return;
    }
    if (m.tag === 'commit') {
      const end = m.commitEndLsn ?? lsn;
      const rows = this.txn ?? [];
      this.txn = null;
      if (lsnValue(end) <= this.applied) return; // landed before a restart
      if (rows.length === 0) return;
      this.firstLsn ??= rows[0]!._lsn as string;
      this.endLsn = end;
      this.pending.push(...rows);
      const size = this.pipeline.definition.batch_size ?? 1000;
      if (this.pending.length >= size) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.flushMs);
      return;
    }
    if (m.tag === 'insert' || m.tag === 'update' || m.tag === 'delete') {
      const row: Record<string, unknown> = { _op: m.tag, _lsn: lsn };
      for (const c of m.relation.columns) row[c.name] = null;
      Object.assign(row, m.tag === 'delete' ? (m.old ?? m.key ?? {}) : m.new);
      (this.txn ??= []).push(row);
    }
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // Cut when the batch in flight lands (issue 32's lag bench: lots cut every interval while each
    // took longer than that to stage queued up, and each paid a batch's fixed cost); a failed lot
    // goes again first, once its back-off has passed.
    if (this.inFlight || (this.failed && Date.now() < this.retryAt)) {
      this.due = this.pending.length > 0;
      return;
    }
    let lot = this.failed;
    if (!lot) {
      if (this.pending.length === 0) return;
      lot = { rows: this.pending, name: `wal:${this.firstLsn}-${this.endLsn}`, end: this.endLsn! };
      this.pending = [];
      this.firstLsn = undefined;
    }
    // Changes that came while a failed lot waited go next, as soon as it lands.
    this.due = this.pending.length > 0;
    this.failed = undefined;
    this.inFlight = true;
    const staging = lot;
    this.flushing = this.stage(staging)
      .then(
        () => {
          this.failures = 0;
        },
        (err: Error) => {
          // Not acknowledged, and kept: sent again (the same batch) after a back-off, before the rest.
          this.failed = staging;
          this.failures += 1;
          const wait = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (this.failures - 1));
          this.retryAt = Date.now() + wait;
          this.options.logger.warn(
            { pipelineId: this.pipeline.id, err: err.message, retryInMs: wait },
            'ingestion: a WAL batch failed; it is sent again before anything after it',
          );
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => this.flush(), wait);
          this.retryTimer.unref();
        },
      )
      .finally(() => {
        this.inFlight = false;
        const size = this.pipeline.definition.batch_size ?? 1000;
        if (!this.stopped && !this.failed && (this.due || this.pending.length >= size)) this.flush();
      });
  }

  /** Stages one lot as a batch, then lets the slot move past it. */
  private async stage(lot: WalLot): Promise<void> {
    const body = lot.rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const spooled = await spool(
      Readable.from([Buffer.from(body, 'utf8')]),
      this.options.maxBytes,
      this.options.spoolDir,
    );
    try {
      const batch = await this.sink.ingest(this.pipeline, spooled, lot.name);
      if (batch.status !== 'completed') {
        this.options.logger.warn(
          { pipelineId: this.pipeline.id, status: batch.status },
          'ingestion: a WAL batch did not complete',
        );
      }
    } finally {
      await spooled.release();
    }
    // Landed (or quarantined for a person to look at): the slot may move past it.
    this.applied = lsnValue(lot.end);
    await this.service?.acknowledge(lot.end);
  }

  /** Acknowledges the server's position when nothing is pending (a quiet table does not hold WAL). */
  private async beat(): Promise<void> {
    if (this.stopped || !this.service || !this.serverLsn) return;
    if (this.inFlight || this.failed || this.pending.length > 0 || this.txn !== null) return;
    await this.service.acknowledge(this.serverLsn).catch(() => undefined);
  }
}

/** Drops a pipeline's slot and publication (its pipeline was deleted); retried while the slot is still active. */
export async function dropReplication(
  definition: PipelineDefinition,
  pipelineId: string,
  password?: string,
): Promise<void> {
  const slot = slotName(pipelineId);
  const admin = new pg.Client(connectionOf(definition, password));
  await admin.connect();
  try {
    for (let i = 0; i < 50; i++) {
      const res = await admin.query<{ active: boolean }>(
        'SELECT active FROM pg_replication_slots WHERE slot_name = $1',
        [slot],
      );
      if (res.rowCount === 0) break;
      if (!res.rows[0]!.active) {
        await admin.query('SELECT pg_drop_replication_slot($1)', [slot]);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await admin.query(`DROP PUBLICATION IF EXISTS ${slot}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
}
