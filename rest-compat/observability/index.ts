// The observability service's REST routes (port 8096): the OTLP/HTTP traces receiver and the
// trace queries, each one call into subgraphs/observability's trace service; alerting in alerts.routes.ts,
// metrics in metrics.routes.ts.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { AlertService } from '../../subgraphs/observability/alert.service';
import type { TraceService } from '../../subgraphs/observability/trace.service';
import type { MetricService } from '../../subgraphs/observability/metric.service';
import { registerAlertRoutes } from './alerts.routes';
import { registerMetricRoutes } from './metrics.routes';
import type { SpanRecord } from '../../subgraphs/observability/observability.types';
import {
  ExportResponse,
  responses,
  SearchQuery,
  SpanList,
  TenantQuery,
  Trace,
  TraceParams,
} from './observability.schemas';

const tags = ['observability'];

function spanJson(s: SpanRecord) {
  return {
    trace_id: s.traceId,
    span_id: s.spanId,
    parent_span_id: s.parentSpanId,
    service: s.service,
    name: s.name,
    start_time: s.startTime,
    duration_ms: s.durationMs,
    error: s.error,
    attributes: s.attributes,
  };
}

export function registerObservabilityRoutes(
  routes: FastifyInstance,
  traces: TraceService,
  alerts: AlertService,
  metrics: MetricService,
): void {
  registerAlertRoutes(routes, alerts);
  registerMetricRoutes(routes, metrics);

  // OTLP/HTTP with JSON encoding. The platform's exporters send without a token (like the health
  // probes, it is for the deployment's own processes); protobuf is 415 (see docs/observability.md).
  routes.post(
    '/v1/traces',
    {
      schema: { tags, summary: 'OTLP/HTTP traces receiver (JSON encoding)', response: responses(ExportResponse) },
      config: { auth: 'public' },
    },
    async (request) => {
      await traces.ingest(request.body);
      return {};
    },
  );

  routes.get<{ Params: TraceParams; Querystring: TenantQuery }>(
    '/traces/:trace_id',
    {
      schema: {
        tags,
        summary: "A trace of the caller's tenant",
        params: TraceParams,
        querystring: TenantQuery,
        response: responses(Trace),
      },
    },
    async (request) => {
      const t = await traces.trace(callerOf(request), request.params.trace_id, request.query.tenant_id);
      return { trace_id: t.traceId, spans: t.spans.map(spanJson) };
    },
  );

  routes.get<{ Querystring: SearchQuery }>(
    '/traces',
    {
      schema: {
        tags,
        summary: "Search the tenant's spans (service, operation, duration, error; at most 7 days, 100 spans)",
        querystring: SearchQuery,
        response: responses(SpanList),
      },
      config: { inputLocation: 'query' },
    },
    async (request) => {
      const q = request.query;
      const spans = await traces.search(callerOf(request), {
        service: q.service,
        operation: q.operation,
        minDurationMs: q.min_duration_ms,
        error: q.error,
        from: q.from,
        to: q.to,
        limit: q.limit,
        tenantId: q.tenant_id,
      });
      return { spans: spans.map(spanJson) };
    },
  );
}
