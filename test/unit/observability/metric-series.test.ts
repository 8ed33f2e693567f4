// The pure parts of metrics: OTLP metric JSON to points (tenant, labels, histogram buckets, PII
// redacted, malformed input named) and stored rows to series (steps, rates across a reset).
import { InputError } from '../../../platform/errors/domain-errors';
import { groupSeries } from '../../../subgraphs/observability/metric.service';
import { decodeOtlpMetrics } from '../../../subgraphs/observability/otlp-metrics.decode';

const kv = (key: string, stringValue: string) => ({ key, value: { stringValue } });

it('takes the tenant from the point, else the resource; adds the service; redacts label values', () => {
  const points = decodeOtlpMetrics({
    resourceMetrics: [
      {
        resource: { attributes: [kv('service.name', 'shop'), kv('platform.tenant_id', 't-res')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'http.requests',
                sum: {
                  dataPoints: [
                    { attributes: [kv('tenant', 't-pt')], timeUnixNano: '2000000', asInt: '3' },
                    { attributes: [kv('email', 'jane@example.com')], timeUnixNano: '2000000', asDouble: 1.5 },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  });
  expect(points[0]).toEqual({
    tenant: 't-pt',
    name: 'http_requests',
    labels: { tenant: 't-pt', service: 'shop' },
    time: 2,
    value: 3,
  });
  expect(points[1]!.tenant).toBe('t-res');
  expect(points[1]!.labels.email).not.toContain('jane@example.com');
});

it('names what is malformed', () => {
  expect(() => decodeOtlpMetrics({})).toThrow(InputError);
  expect(() =>
    decodeOtlpMetrics({
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'h',
                  histogram: { dataPoints: [{ timeUnixNano: '1', bucketCounts: [1, 2], explicitBounds: [] }] },
                },
              ],
            },
          ],
        },
      ],
    }),
  ).toThrow(InputError);
});

it('groups rows by series, and a rate counts a reset whole', () => {
  const row = (id: string, bucket: number, value: number) => ({ seriesId: id, labels: { id }, bucket, value });
  const rows = [row('1', 10, 100), row('1', 11, 160), row('1', 13, 20), row('2', 10, 5)];
  expect(groupSeries('m', rows, 60, false).map((s) => s.points.map((p) => p.v))).toEqual([[100, 160, 20], [5]]);
  const rates = groupSeries('m', rows, 60, true);
  expect(rates[0]!.points).toEqual([
    { t: new Date(11 * 60_000).toISOString(), v: 1 },
    { t: new Date(13 * 60_000).toISOString(), v: 20 / 120 },
  ]);
  expect(rates[1]!.points).toEqual([]);
});
