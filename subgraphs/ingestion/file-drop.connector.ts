// The file-drop connector: one watched root (INGESTION_DROP_ROOT), a directory per pipeline at
// `<root>/<tenant>/<pipeline name>/` (the tenant URI-encoded). A file is taken when it is
// complete, as its pipeline says: its size unchanged for INGESTION_DROP_STABLE_MS (`stable`, the
// default; chokidar's awaitWriteFinish), or a `<file>.done` marker beside it (`done_marker`).
// Taking it is a rename into `.processing/` (so two copies of the service never take one file),
// then a batch; afterwards it is moved to `processed/` or, with a `.error.txt` saying why, to
// `failed/`. Paths come from the file system, never from a request: a file's place in the tree
// names its tenant and pipeline, a symbolic link is refused (moved to failed), and nothing
// outside the root is read.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../../platform/logging/logger';
import type { BatchService } from './batch.service';
import type { PipelineStore } from './pipeline.store';
import type { Pipeline } from './pipeline.types';
import { spoolFile } from './spool';

const DONE = '.done';
const HELD = new Set(['.processing', 'processed', 'failed']);

export class FileDropConnector {
  private watcher?: FSWatcher;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      root: string;
      stableMs: number;
      pipelines: PipelineStore;
      batches: BatchService;
      logger: Pick<Logger, 'warn' | 'info'>;
    },
  ) {}

  async start(): Promise<void> {
    await fs.promises.mkdir(this.deps.root, { recursive: true });
    const root = await fs.promises.realpath(this.deps.root);
    this.watcher = watch(root, {
      depth: 3,
      ignoreInitial: false,
      followSymlinks: false,
      awaitWriteFinish: { stabilityThreshold: this.deps.stableMs, pollInterval: Math.min(100, this.deps.stableMs) },
      ignored: (p) =>
        path
          .relative(root, p)
          .split(path.sep)
          .some((part, i) => i === 2 && HELD.has(part)),
    });
    this.watcher.on('add', (file) => {
      this.queue = this.queue
        .then(() => this.consider(root, file))
        .catch((err: unknown) =>
          this.deps.logger.warn({ err: (err as Error).message }, 'ingestion: a dropped file could not be taken'),
        );
    });
    await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  async stop(): Promise<void> {
    await this.watcher?.close();
    await this.queue;
  }

  /** Where a new file stands: the tenant and pipeline its place names, and the file to take, if any. */
  private async consider(root: string, file: string): Promise<void> {
    const parts = path.relative(root, file).split(path.sep);
    if (parts.length !== 3) return;
    const [tenantDir, name, fileName] = parts as [string, string, string];
    let tenantId: string;
    try {
      tenantId = decodeURIComponent(tenantDir);
    } catch {
      return;
    }
    const pipeline = await this.deps.pipelines.byName(tenantId, name);
    if (!pipeline || pipeline.sourceKind !== 'file_drop') return;
    const dir = path.join(root, tenantDir, name);
    const marker = pipeline.definition.source.complete === 'done_marker';
    if (fileName.endsWith(DONE)) {
      if (!marker) return;
      const target = fileName.slice(0, -DONE.length);
      if (!fs.existsSync(path.join(dir, target))) return; // the marker came first: the file's own event takes it
      await this.take(tenantId, pipeline, dir, target);
      await fs.promises.rm(path.join(dir, fileName), { force: true });
      return;
    }
    if (marker && !fs.existsSync(path.join(dir, fileName + DONE))) return;
    await this.take(tenantId, pipeline, dir, fileName);
    if (marker) await fs.promises.rm(path.join(dir, fileName + DONE), { force: true });
  }

  private async take(tenantId: string, pipeline: Pipeline, dir: string, fileName: string): Promise<void> {
    const source = path.join(dir, fileName);
    const held = path.join(dir, '.processing', `${randomUUID()}-${fileName}`);
    await fs.promises.mkdir(path.dirname(held), { recursive: true });
    const stat = await fs.promises.lstat(source).catch(() => null);
    if (!stat) return; // taken by another copy already
    if (!stat.isFile()) {
      await this.settle(
        dir,
        source,
        fileName,
        'failed',
        'not a regular file (a symbolic link or a device is never read)',
      );
      return;
    }
    try {
      await fs.promises.rename(source, held);
    } catch {
      return; // another copy renamed it first
    }
    let outcome: 'processed' | 'failed' = 'failed';
    let reason: string | undefined;
    try {
      const spooled = await spoolFile(held, this.deps.batches.limits.maxBytes);
      const batch = await this.deps.batches.ingest(
        { correlationId: randomUUID() },
        tenantId,
        pipeline,
        spooled,
        fileName,
      );
      if (batch.status === 'completed') outcome = 'processed';
      else reason = batch.error ?? batch.status;
    } catch (err) {
      reason = (err as Error).message;
    }
    await this.settle(dir, held, fileName, outcome, reason);
    this.deps.logger.info({ tenantId, pipeline: pipeline.name, outcome }, 'ingestion: dropped file taken');
  }

  private async settle(
    dir: string,
    from: string,
    fileName: string,
    to: 'processed' | 'failed',
    reason?: string,
  ): Promise<void> {
    const target = path.join(dir, to);
    await fs.promises.mkdir(target, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${fileName}`;
    await fs.promises.rename(from, path.join(target, name));
    if (reason) {
      // Written beside .processing and renamed in, so whoever watches failed/ never reads it half-written.
      const draft = path.join(dir, '.processing', `${randomUUID()}.error.txt`);
      await fs.promises.mkdir(path.dirname(draft), { recursive: true });
      await fs.promises.writeFile(draft, reason + '\n');
      await fs.promises.rename(draft, path.join(target, `${name}.error.txt`));
    }
  }
}
