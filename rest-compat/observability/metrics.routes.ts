// The metric routes of the observability service: the OTLP/HTTP metrics receiver and the series
// query, each one call into subgraphs/observability's metric service.
import type { FastifyInstance } from 'fastify';
import { InputError } from '../../platform/errors/domain-errors';
import { callerOf } from '../../platform/http/caller';
import type { MetricService } from '../../subgraphs/observability/metric.service';
import { MetricsExportResponse, SeriesList, SeriesQuery } from './metrics.schemas';
import { responses } from './observability.schemas';

const tags = ['observability'];

function parseMatchers(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    throw new InputError([{ loc: ['query', 'matchers'], msg: 'Should be a JSON object', type: 'value_error' }]);
  }
}

export function registerMetricRoutes(routes: FastifyInstance, metrics: MetricService): void {
  // OTLP/HTTP with JSON encoding, open to the deployment's exporters like /v1/traces.
  routes.post(
    '/v1/metrics',
    {
      schema: {
        tags,
        summary: 'OTLP/HTTP metrics receiver (JSON encoding; gauge, sum, histogram)',
        response: responses(MetricsExportResponse),
      },
      config: { auth: 'public' },
    },
    async (request) => {
      const { rejected } = await metrics.ingest(request.body);
      return rejected === 0
        ? {}
        : {
            partialSuccess: {
              rejectedDataPoints: rejected,
              errorMessage: 'Series over the tenant series budget were dropped',
            },
          };
    },
  );

  routes.get<{ Querystring: SeriesQuery }>(
    '/metric-series',
    {
      schema: {
        tags,
        summary:
          "One metric's series of the caller's tenant (label matchers, at most 7 days, 11,000 points a series, 500 series)",
        querystring: SeriesQuery,
        response: responses(SeriesList),
      },
      config: { inputLocation: 'query' },
    },
    async (request) => {
      const q = request.query;
      const series = await metrics.series(callerOf(request), {
        metric: q.metric,
        matchers: parseMatchers(q.matchers),
        from: q.from,
        to: q.to,
        stepSeconds: q.step_seconds,
        rate: q.rate,
        scope: q.scope,
        tenantId: q.tenant_id,
      });
      return { series };
    },
  );
}
