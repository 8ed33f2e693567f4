// DataFlow's REST door (port 8145, under /api/dataflow): thin adapters over run.service, one call
// each. Authentication is the kernel's hook on the whole prefix.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { RunRecord } from '../../subgraphs/dataflow/dataflow.types';
import type { DataflowCaller, DataflowService } from '../../subgraphs/dataflow/run.service';
import {
  BreakPage,
  BreakQuery,
  Evidence,
  responses,
  Run,
  RunBody,
  RunList,
  RunListQuery,
  RunParams,
  StageBody,
  StageParams,
  Staged,
  TenantQuery,
} from './dataflow.schemas';

const tags = ['dataflow'];

export function runJson(r: RunRecord) {
  return {
    run_id: r.id,
    tenant_id: r.tenantId,
    pack_id: r.packId,
    pack_version: r.packVersion,
    trigger_kind: r.triggerKind,
    trigger_key: r.triggerKey,
    status: r.status,
    error: r.error,
    result: r.result,
    requested_by: r.requestedBy,
    started_at: r.startedAt.toISOString(),
    finished_at: r.finishedAt?.toISOString() ?? null,
  };
}

const callerFor = (request: FastifyRequest): DataflowCaller => ({
  ...callerOf(request),
  token: bearerToken(request.headers.authorization),
});

export function registerDataflowRoutes(routes: FastifyInstance, service: DataflowService): void {
  routes.post<{ Body: RunBody }>(
    '/api/dataflow/runs',
    {
      schema: {
        tags,
        summary: 'Run a certified dataflow pack now (the same idempotency_key runs it once)',
        body: RunBody,
        response: responses(Run),
      },
    },
    async (request) =>
      runJson(
        await service.run(callerFor(request), {
          packId: request.body.pack_id,
          version: request.body.version,
          idempotencyKey: request.body.idempotency_key,
          tenantId: request.body.tenant_id,
          trigger: request.body.trigger,
        }),
      ),
  );

  routes.get<{ Querystring: RunListQuery }>(
    '/api/dataflow/runs',
    { schema: { tags, summary: 'Runs, newest first', querystring: RunListQuery, response: responses(RunList) } },
    async (request) => {
      const q = request.query;
      const runs = await service.listRuns(callerFor(request), {
        packId: q.pack_id,
        limit: q.limit,
        before: q.before,
        tenantId: q.tenant_id,
      });
      return { runs: runs.map(runJson) };
    },
  );

  routes.get<{ Params: RunParams; Querystring: TenantQuery }>(
    '/api/dataflow/runs/:run_id',
    {
      schema: { tags, summary: 'One run', params: RunParams, querystring: TenantQuery, response: responses(Run) },
      config: { inputLocation: 'path' },
    },
    async (request) =>
      runJson(
        await service.getRun(callerFor(request), { runId: request.params.run_id, tenantId: request.query.tenant_id }),
      ),
  );

  routes.get<{ Params: RunParams; Querystring: BreakQuery }>(
    '/api/dataflow/runs/:run_id/breaks',
    {
      schema: {
        tags,
        summary: 'Breaks and unmatched records of a run (PII masked), one page at a time',
        params: RunParams,
        querystring: BreakQuery,
        response: responses(BreakPage),
      },
      config: { inputNames: { after: 'cursor' } },
    },
    async (request) => {
      const q = request.query;
      const limit = q.limit ?? 50;
      const rows = await service.breaks(callerFor(request), {
        runId: request.params.run_id,
        category: q.category,
        limit,
        after: q.cursor,
        tenantId: q.tenant_id,
      });
      return {
        breaks: rows.map(({ reconciliation, category, key, detail }) => ({ reconciliation, category, key, detail })),
        next_cursor: rows.length === limit ? rows[rows.length - 1]!.seq : null,
      };
    },
  );

  routes.get<{ Params: RunParams; Querystring: TenantQuery }>(
    '/api/dataflow/runs/:run_id/evidence',
    {
      schema: {
        tags,
        summary: "A run's evidence (passes and failures alike) and its SHA-256",
        params: RunParams,
        querystring: TenantQuery,
        response: responses(Evidence),
      },
      config: { inputLocation: 'path' },
    },
    async (request) => {
      const e = await service.evidence(callerFor(request), {
        runId: request.params.run_id,
        tenantId: request.query.tenant_id,
      });
      return { run_id: e.runId, sha256: e.sha256, content: e.content, created_at: e.createdAt.toISOString() };
    },
  );

  routes.post<{ Params: StageParams; Body: StageBody }>(
    '/api/dataflow/datasets/:dataset/records',
    {
      schema: {
        tags,
        summary: 'Stage records into a dataset (replacing those with the same key)',
        params: StageParams,
        body: StageBody,
        response: responses(Staged),
      },
    },
    async (request) =>
      service.stage(callerFor(request), {
        dataset: request.params.dataset,
        records: request.body.records as { key: string; data: Record<string, unknown> }[],
        tenantId: request.body.tenant_id,
      }),
  );
}
