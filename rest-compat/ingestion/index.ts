// The ingestion service's REST door (port 8092, under /api/ingestion/...; the gateway proxies the
// same paths), thin adapters over subgraphs/ingestion: pipelines (created, versioned, read,
// deleted), REST push (a multipart `file`, or the source itself as a streamed body: text/csv,
// application/x-ndjson, application/json), batches with their progress, quarantine, staged
// records and lineage, and source schema changes with their approval. JSON in snake_case; errors as FastAPI shapes them.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { InputError, NotFoundError, PayloadTooLargeError } from '../../platform/errors/domain-errors';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { IngestionModule } from '../../subgraphs/ingestion/ingestion.module';
import type { Batch, Pipeline, PipelineVersion, SchemaChange } from '../../subgraphs/ingestion/pipeline.types';
import {
  BatchParams,
  DefinitionBody,
  ListQuery,
  PipelineParams,
  PushQuery,
  RecordsQuery,
  TenantQuery,
} from './ingestion.schemas';

const PREFIX = '/api/ingestion';
const TAGS = ['ingestion'];
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function pipelineJson(p: Pipeline) {
  return {
    id: p.id,
    tenant_id: p.tenantId,
    name: p.name,
    source_kind: p.sourceKind,
    version: p.version,
    definition: p.definition,
    definition_sha256: p.definitionSha256,
    created_by: p.createdBy,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

const versionJson = (v: PipelineVersion) => ({
  version: v.version,
  definition: v.definition,
  definition_sha256: v.definitionSha256,
  created_by: v.createdBy,
  created_at: v.createdAt.toISOString(),
});

export function batchJson(b: Batch) {
  return {
    id: b.id,
    tenant_id: b.tenantId,
    pipeline_id: b.pipelineId,
    pipeline_version: b.pipelineVersion,
    run_id: b.runId,
    source_name: b.sourceName,
    content_sha256: b.contentSha256,
    status: b.status,
    progress: { rows_read: b.rowsRead, rows_staged: b.rowsStaged, rows_quarantined: b.rowsQuarantined },
    error: b.error,
    manifest: b.manifest,
    created_at: b.createdAt.toISOString(),
    completed_at: iso(b.completedAt),
  };
}

export function schemaChangeJson(c: SchemaChange) {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    pipeline_id: c.pipelineId,
    batch_id: c.batchId,
    columns: c.columns,
    added: c.added,
    removed: c.removed,
    status: c.status,
    requested_by: c.requestedBy,
    workflow_id: c.workflowId,
    approval_task_id: c.approvalTaskId,
    reviewer: c.reviewer,
    created_at: c.createdAt.toISOString(),
    decided_at: iso(c.decidedAt),
  };
}

type Q<T = object> = { tenant_id?: string } & T;

/** The pushed source: the multipart `file` part, or the body itself. */
async function pushedSource(request: FastifyRequest): Promise<{ stream: Readable; filename?: string }> {
  if (request.isMultipart()) {
    const file = await request.file();
    if (!file || file.fieldname !== 'file') throw InputError.of(['body', 'file'], 'Field required', 'missing');
    return { stream: file.file, filename: file.filename || undefined };
  }
  return { stream: request.body as Readable };
}

export function registerIngestionRoutes(routes: FastifyInstance, ingestion: IngestionModule): void {
  const { pipelines, batches } = ingestion;
  const maxBytes = batches.limits.maxBytes;

  routes.get<{ Querystring: Q<{ limit?: number }> }>(
    `${PREFIX}/pipelines`,
    {
      config: { inputLocation: 'query' },
      schema: { tags: TAGS, summary: "The tenant's pipelines, by name", querystring: ListQuery },
    },
    async (request) => ({
      pipelines: (await pipelines.list(callerOf(request), request.query.tenant_id, request.query.limit)).map(
        pipelineJson,
      ),
    }),
  );

  routes.post<{ Body: { definition?: unknown; yaml?: string; tenant_id?: string } }>(
    `${PREFIX}/pipelines`,
    {
      schema: {
        tags: TAGS,
        summary:
          "Create a pipeline from its definition (JSON or YAML), checked against the schema registry's ingestion-pipeline schema",
        body: DefinitionBody,
      },
    },
    async (request, reply) => {
      const b = request.body;
      const created = await pipelines.create(callerOf(request), {
        definition: b.definition,
        yaml: b.yaml,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(pipelineJson(created));
    },
  );

  routes.get<{ Params: { pipeline_id: string }; Querystring: Q }>(
    `${PREFIX}/pipelines/:pipeline_id`,
    {
      config: { inputLocation: 'query' },
      schema: { tags: TAGS, summary: "A pipeline's current version", params: PipelineParams, querystring: TenantQuery },
    },
    async (request) =>
      pipelineJson(await pipelines.get(callerOf(request), request.params.pipeline_id, request.query.tenant_id)),
  );

  routes.put<{ Params: { pipeline_id: string }; Body: { definition?: unknown; yaml?: string; tenant_id?: string } }>(
    `${PREFIX}/pipelines/:pipeline_id`,
    {
      schema: {
        tags: TAGS,
        summary: "A new version of a pipeline's definition (its name stays)",
        params: PipelineParams,
        body: DefinitionBody,
      },
    },
    async (request) => {
      const b = request.body;
      return pipelineJson(
        await pipelines.update(callerOf(request), request.params.pipeline_id, {
          definition: b.definition,
          yaml: b.yaml,
          tenantId: b.tenant_id,
        }),
      );
    },
  );

  routes.delete<{ Params: { pipeline_id: string }; Querystring: Q }>(
    `${PREFIX}/pipelines/:pipeline_id`,
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a pipeline (its batches, staged records and lineage stay)',
        params: PipelineParams,
        querystring: TenantQuery,
      },
    },
    async (request, reply) => {
      await pipelines.remove(callerOf(request), request.params.pipeline_id, request.query.tenant_id);
      return reply.code(204).send();
    },
  );

  routes.get<{ Params: { pipeline_id: string }; Querystring: Q }>(
    `${PREFIX}/pipelines/:pipeline_id/versions`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "A pipeline's versions, oldest first",
        params: PipelineParams,
        querystring: TenantQuery,
      },
    },
    async (request) => ({
      versions: (await pipelines.versions(callerOf(request), request.params.pipeline_id, request.query.tenant_id)).map(
        versionJson,
      ),
    }),
  );

  routes.get<{ Params: { pipeline_id: string }; Querystring: Q<{ limit?: number }> }>(
    `${PREFIX}/pipelines/:pipeline_id/batches`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "A pipeline's batches, newest first",
        params: PipelineParams,
        querystring: ListQuery,
      },
    },
    async (request) => ({
      batches: (
        await batches.batches(
          callerOf(request),
          request.params.pipeline_id,
          request.query.tenant_id,
          request.query.limit,
        )
      ).map(batchJson),
    }),
  );

  routes.post<{ Params: { pipeline_id: string }; Body: { tenant_id?: string } | undefined }>(
    `${PREFIX}/pipelines/:pipeline_id/pull`,
    {
      schema: {
        tags: TAGS,
        summary:
          'Pull a rest_pull or sftp source now (the scheduler does so every schedule.interval_seconds): answers the batches it made; ' +
          'content already ingested answers its completed batch',
        params: PipelineParams,
        body: { ...TenantQuery, nullable: true },
      },
    },
    async (request) => {
      if (!ingestion.puller) throw new NotFoundError('Pulling is not configured');
      const made = await ingestion.puller.pull(callerOf(request), request.params.pipeline_id, request.body?.tenant_id);
      return { batches: made.map(batchJson) };
    },
  );

  // The push route reads its body as a stream: its own scope drops the JSON parser (a pushed JSON
  // source is a source, not a request body) and takes every content type as a stream; the spool
  // counts the bytes against INGESTION_MAX_BYTES.
  void routes.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    await scope.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 5, fieldSize: 1024 } });
    scope.post<{ Params: { pipeline_id: string }; Querystring: Q<{ source_name?: string }> }>(
      `${PREFIX}/pipelines/:pipeline_id/push`,
      {
        config: { inputLocation: 'query' },
        schema: {
          tags: TAGS,
          summary:
            'Push a source to a pipeline: multipart/form-data `file`, or the body itself (CSV, NDJSON, JSON, XML, XLSX, Parquet) streamed. ' +
            'Answers the batch; the same content again answers (or resumes) the same batch',
          consumes: [
            'multipart/form-data',
            'text/csv',
            'application/x-ndjson',
            'application/json',
            'application/xml',
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            'application/vnd.apache.parquet',
            'application/octet-stream',
          ],
          params: PipelineParams,
          querystring: PushQuery,
        },
      },
      async (request, reply) => {
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > maxBytes) throw new PayloadTooLargeError(`the source is larger than ${maxBytes} bytes`);
        const source = await pushedSource(request);
        // The token goes with the caller: a schema change this source meets is requested as its sender.
        const caller = { ...callerOf(request), token: bearerToken(request.headers.authorization) };
        const batch = await batches.push(caller, request.params.pipeline_id, {
          stream: source.stream,
          sourceName: request.query.source_name ?? source.filename ?? 'push',
          tenantId: request.query.tenant_id,
        });
        return reply.code(batch.status === 'completed' ? 200 : 202).send(batchJson(batch));
      },
    );
  });

  routes.get<{ Params: { batch_id: string }; Querystring: Q }>(
    `${PREFIX}/batches/:batch_id`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: 'A batch: status, progress (rows read, staged, quarantined) and manifest',
        params: BatchParams,
        querystring: TenantQuery,
      },
    },
    async (request) =>
      batchJson(await batches.batch(callerOf(request), request.params.batch_id, request.query.tenant_id)),
  );

  routes.get<{ Params: { batch_id: string }; Querystring: Q }>(
    `${PREFIX}/batches/:batch_id/schema-change`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary:
          'The source schema change a quarantined batch met, with its approval task and decision (404 when it met none)',
        params: BatchParams,
        querystring: TenantQuery,
      },
    },
    async (request) =>
      schemaChangeJson(await batches.schemaChange(callerOf(request), request.params.batch_id, request.query.tenant_id)),
  );

  routes.get<{ Params: { pipeline_id: string }; Querystring: Q<{ limit?: number }> }>(
    `${PREFIX}/pipelines/:pipeline_id/schema-changes`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "A pipeline's source schema changes, newest first, with their approval tasks and decisions",
        params: PipelineParams,
        querystring: ListQuery,
      },
    },
    async (request) => ({
      schema_changes: (
        await batches.schemaChanges(
          callerOf(request),
          request.params.pipeline_id,
          request.query.tenant_id,
          request.query.limit,
        )
      ).map(schemaChangeJson),
    }),
  );

  routes.get<{ Params: { batch_id: string }; Querystring: Q<{ limit?: number }> }>(
    `${PREFIX}/batches/:batch_id/quarantine`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "A batch's quarantined records with their reasons",
        params: BatchParams,
        querystring: ListQuery,
      },
    },
    async (request) => ({
      records: (
        await batches.quarantine(
          callerOf(request),
          request.params.batch_id,
          request.query.tenant_id,
          request.query.limit,
        )
      ).map((r) => ({
        offset: r.offset,
        reason: r.reason,
        record: r.record,
        raw_sha256: r.rawSha256,
        created_at: r.createdAt.toISOString(),
      })),
    }),
  );

  routes.get<{ Params: { batch_id: string }; Querystring: Q<{ after?: number; limit?: number }> }>(
    `${PREFIX}/batches/:batch_id/records`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "A batch's staged records (scrubbed) with their lineage: source, batch and offset; paged by offset",
        params: BatchParams,
        querystring: RecordsQuery,
      },
    },
    async (request) => {
      const q = request.query;
      const records = await batches.records(callerOf(request), request.params.batch_id, {
        tenantId: q.tenant_id,
        after: q.after,
        limit: q.limit,
      });
      return {
        records: records.map((r) => ({
          batch_id: r.batchId,
          offset: r.offset,
          dataset: r.dataset,
          source: r.source,
          data: r.data,
        })),
        next_after: records.length > 0 ? records[records.length - 1]!.offset : null,
      };
    },
  );

  routes.get<{ Params: { batch_id: string }; Querystring: Q }>(
    `${PREFIX}/batches/:batch_id/lineage`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: TAGS,
        summary: "The OpenLineage run events of a batch's run (START, COMPLETE, FAIL)",
        params: BatchParams,
        querystring: TenantQuery,
      },
    },
    async (request) => ({
      events: (await batches.lineage(callerOf(request), request.params.batch_id, request.query.tenant_id)).map(
        (e) => e.event,
      ),
    }),
  );
}
