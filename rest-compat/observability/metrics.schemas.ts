// JSON schemas of the metric routes (validation and OpenAPI).
import { Type, type Static } from '@sinclair/typebox';

/** OTLP's ExportMetricsServiceResponse: points over a tenant's series budget are reported rejected. */
export const MetricsExportResponse = Type.Object({
  partialSuccess: Type.Optional(
    Type.Object({ rejectedDataPoints: Type.Optional(Type.Integer()), errorMessage: Type.Optional(Type.String()) }),
  ),
});

export const SeriesQuery = Type.Object({
  metric: Type.String({ minLength: 1, maxLength: 200 }),
  /** A JSON object of label equality matchers, e.g. {"service":"ledger"}. */
  matchers: Type.Optional(Type.String({ maxLength: 4000 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  step_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  rate: Type.Optional(Type.Boolean()),
  scope: Type.Optional(Type.Union([Type.Literal('tenant'), Type.Literal('platform')])),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});
export type SeriesQuery = Static<typeof SeriesQuery>;

export const SeriesList = Type.Object({
  series: Type.Array(
    Type.Object({
      metric: Type.String(),
      labels: Type.Record(Type.String(), Type.String()),
      points: Type.Array(Type.Object({ t: Type.String({ format: 'date-time' }), v: Type.Number() })),
    }),
  ),
});
