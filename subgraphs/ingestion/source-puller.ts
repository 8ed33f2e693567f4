// Runs a pull for a pipeline whose source is fetched rather than pushed (rest_pull, sftp): the
// connector spools what it fetched, and each spooled source becomes a batch through the same core
// path as a push (batch.service.ts). Called by `POST /api/ingestion/pipelines/{id}/pull` and by
// the scheduler. Secrets are resolved here, when the connector needs them, from their references.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import type { Env } from '../../platform/service';
import type { BatchService } from './batch.service';
import type { PullGuard } from './guarded-http';
import type { PipelineService } from './pipeline.service';
import type { PipelineStore } from './pipeline.store';
import type { Batch, Pipeline, PipelineDefinition } from './pipeline.types';
import { pullRest } from './rest-pull.connector';
import { resolveSecret } from './secret-ref';
import { pullSftp } from './sftp.connector';

export const PULLED_KINDS = ['rest_pull', 'sftp'] as const;

export class SourcePuller {
  constructor(
    private readonly deps: {
      pipelines: PipelineService;
      pipelineStore: PipelineStore;
      batches: BatchService;
      guard: PullGuard;
      env: Env;
      secretRoots: readonly string[];
      spoolDir?: string;
    },
  ) {}

  /** A pull a caller asked for now. */
  async pull(caller: Caller, pipelineId: string, requestedTenant?: string): Promise<Batch[]> {
    const tenantId = await this.deps.pipelines.tenant(caller, requestedTenant, 'pull an ingestion source', true);
    const pipeline = await this.deps.pipelineStore.get(tenantId, pipelineId);
    if (!pipeline) throw new NotFoundError('Pipeline not found');
    return this.run(caller, tenantId, pipeline);
  }

  /** A scheduled pull (the scheduler's own caller). */
  async pullScheduled(tenantId: string, pipelineId: string): Promise<Batch[]> {
    const pipeline = await this.deps.pipelineStore.get(tenantId, pipelineId);
    if (!pipeline) return [];
    return this.run({ correlationId: randomUUID() }, tenantId, pipeline);
  }

  private async run(caller: Caller, tenantId: string, pipeline: Pipeline): Promise<Batch[]> {
    const definition = pipeline.definition;
    const kind = definition.source.kind;
    const limits = this.deps.batches.limits;
    if (kind === 'rest_pull') {
      const spooled = await pullRest(definition, {
        guard: this.deps.guard,
        maxBytes: limits.maxBytes,
        spoolDir: this.deps.spoolDir,
        authorization: this.basicAuth(definition),
      });
      try {
        const name = new URL(definition.source.url!).pathname.split('/').pop() || 'pull';
        // JSON pages were written one record per line.
        const format = definition.format.type === 'json' ? { type: 'ndjson' as const } : undefined;
        return [await this.deps.batches.ingest(caller, tenantId, pipeline, spooled, name, { format })];
      } finally {
        await spooled.release();
      }
    }
    if (kind === 'sftp') {
      const batches: Batch[] = [];
      await pullSftp(
        definition,
        {
          maxBytes: limits.maxBytes,
          spoolDir: this.deps.spoolDir,
          password: this.secret(definition, 'password'),
          privateKey: this.secret(definition, 'private_key'),
        },
        async (fileName, spooled) => {
          batches.push(await this.deps.batches.ingest(caller, tenantId, pipeline, spooled, fileName));
        },
      );
      return batches;
    }
    throw InputError.of(['definition', 'source', 'kind'], `a ${kind} source is not pulled`);
  }

  private secret(definition: PipelineDefinition, field: 'password' | 'private_key'): string | undefined {
    const ref = definition.source[field];
    return ref ? resolveSecret(ref, this.deps.env, this.deps.secretRoots, field) : undefined;
  }

  private basicAuth(definition: PipelineDefinition): string | undefined {
    const password = this.secret(definition, 'password');
    if (!definition.source.username || password === undefined) return undefined;
    return 'Basic ' + Buffer.from(`${definition.source.username}:${password}`, 'utf8').toString('base64');
  }
}
