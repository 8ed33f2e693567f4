// JSON schemas of the observability service's REST routes (validation and OpenAPI).
import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const Detail = Type.Object({ detail: Type.Unknown() });

export function responses(ok: TSchema): Record<number, TSchema> {
  return { 200: ok, 401: Detail, 403: Detail, 404: Detail, 413: Detail, 415: Detail, 422: Detail, 503: Detail };
}

const TenantId = Type.String({ minLength: 1, maxLength: 255 });

export const Span = Type.Object({
  trace_id: Type.String(),
  span_id: Type.String(),
  parent_span_id: Type.Union([Type.String(), Type.Null()]),
  service: Type.String(),
  name: Type.String(),
  start_time: Type.String({ format: 'date-time' }),
  duration_ms: Type.Number(),
  error: Type.Boolean(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
});

export const Trace = Type.Object({ trace_id: Type.String(), spans: Type.Array(Span) });
export const SpanList = Type.Object({ spans: Type.Array(Span) });

/** OTLP's ExportTraceServiceResponse: nothing rejected. */
export const ExportResponse = Type.Object({ partialSuccess: Type.Optional(Type.Object({})) });

export const TraceParams = Type.Object({ trace_id: Type.String({ maxLength: 64 }) });
export type TraceParams = Static<typeof TraceParams>;
export const TenantQuery = Type.Object({ tenant_id: Type.Optional(TenantId) });
export type TenantQuery = Static<typeof TenantQuery>;

export const SearchQuery = Type.Object({
  service: Type.Optional(Type.String({ maxLength: 128 })),
  operation: Type.Optional(Type.String({ maxLength: 512 })),
  min_duration_ms: Type.Optional(Type.Number({ minimum: 0 })),
  error: Type.Optional(Type.Boolean()),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  limit: Type.Optional(Type.Integer()),
  tenant_id: Type.Optional(TenantId),
});
export type SearchQuery = Static<typeof SearchQuery>;
