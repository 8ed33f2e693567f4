// Key dashboards of the observability page (issue 31): request rate, error rate and mean latency
// over the last hour, from the stored metric series (metricSeries, per-second rates per minute),
// drawn with uPlot like the charts page. The tenant sees its own request rate
// (tenant_requests_total); platform operators also see the platform's requests, errors and latency
// (platform series). Each chart has a one-line text summary for people who do not see the canvas.
import { useMemo } from 'react';
import { useQuery } from '@apollo/client/react';
import type uPlot from 'uplot';
import { graphql } from '../gql';
import { Chart } from '../ui/chart';
import { Empty, ErrorNote, Loading } from '../ui/states';

const TENANT = graphql(`
  query TenantDashboards($from: String) {
    requests: metricSeries(metric: "tenant_requests_total", rate: true, from: $from, stepSeconds: 60) {
      points {
        t
        v
      }
    }
  }
`);

const PLATFORM = graphql(`
  query PlatformDashboards($from: String) {
    requests: metricSeries(metric: "http_requests_total", rate: true, scope: "platform", from: $from, stepSeconds: 60) {
      points {
        t
        v
      }
    }
    errors: metricSeries(
      metric: "http_request_errors_total"
      rate: true
      scope: "platform"
      from: $from
      stepSeconds: 60
    ) {
      points {
        t
        v
      }
    }
    seconds: metricSeries(
      metric: "http_request_duration_seconds_sum"
      rate: true
      scope: "platform"
      from: $from
      stepSeconds: 60
    ) {
      points {
        t
        v
      }
    }
    count: metricSeries(
      metric: "http_request_duration_seconds_count"
      rate: true
      scope: "platform"
      from: $from
      stepSeconds: 60
    ) {
      points {
        t
        v
      }
    }
  }
`);

type Series = readonly { points: readonly { t: string; v: number }[] }[];

/** The series summed at each step (seconds since the epoch, ascending). */
export function sumByTime(series: Series): Map<number, number> {
  const sums = new Map<number, number>();
  for (const s of series)
    for (const p of s.points) {
      const t = Date.parse(p.t) / 1000;
      sums.set(t, (sums.get(t) ?? 0) + p.v);
    }
  return new Map([...sums].sort(([a], [b]) => a - b));
}

function aligned(sums: Map<number, number>): uPlot.AlignedData {
  return [[...sums.keys()], [...sums.values()]];
}

const last = (sums: Map<number, number>) => [...sums.values()].pop();
const fmt = (n: number | undefined, unit: string, digits = 2) =>
  n === undefined ? '—' : `${n.toFixed(digits)} ${unit}`;
const line = (label: string, stroke: string, y: string) => ({
  series: [{}, { label, stroke, width: 2 }],
  axes: [
    { label: 'time', stroke: '#222' },
    { label: y, stroke: '#222' },
  ],
});
const OPTIONS = {
  tenant: line('Requests/s', '#0b57d0', 'requests/s'),
  requests: line('Requests/s', '#0b57d0', 'requests/s'),
  errors: line('5xx/s', '#b3261e', 'errors/s'),
  latency: line('Mean ms', '#6a1b9a', 'ms'),
};

// One hour, floored to the minute so the query's variables (and Apollo's cache key) hold for a minute.
const hourAgo = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 - 3600_000).toISOString();

function TenantRequests({ from }: { from: string }) {
  const { data, loading, error } = useQuery(TENANT, { variables: { from }, pollInterval: 60_000 });
  const sums = useMemo(() => sumByTime(data?.requests ?? []), [data]);
  if (loading && !data) return <Loading what="your request rate" />;
  if (error) return <ErrorNote error={error} />;
  if (sums.size === 0) return <Empty>No request counts stored for your tenant in the last hour yet.</Empty>;
  return (
    <Chart
      title="Your requests per second"
      summary={`Latest minute: ${fmt(last(sums), 'requests/s')}; peak ${fmt(Math.max(...sums.values()), 'requests/s')}.`}
      options={OPTIONS.tenant}
      data={aligned(sums)}
    />
  );
}

function PlatformCharts({ from }: { from: string }) {
  const { data, loading, error } = useQuery(PLATFORM, { variables: { from }, pollInterval: 60_000 });
  const charts = useMemo(() => {
    if (!data) return undefined;
    const requests = sumByTime(data.requests);
    const errors = sumByTime(data.errors);
    const seconds = sumByTime(data.seconds);
    const count = sumByTime(data.count);
    // Mean latency per step: time spent over requests served in it (steps with no request have none).
    const latency = new Map(
      [...seconds].flatMap(([t, s]) => {
        const n = count.get(t);
        return n ? [[t, (s / n) * 1000] as const] : [];
      }),
    );
    return { requests, errors, latency };
  }, [data]);
  if (loading && !data) return <Loading what="platform dashboards" />;
  if (error)
    return /forbidden|platform-admin/i.test(error.message) ? (
      <p className="muted">The platform's request, error and latency dashboards are for platform operators.</p>
    ) : (
      <ErrorNote error={error} />
    );
  if (!charts || charts.requests.size === 0)
    return <Empty>No platform request series stored in the last hour yet.</Empty>;
  return (
    <>
      <Chart
        title="Platform requests per second"
        summary={`Latest minute: ${fmt(last(charts.requests), 'requests/s')}.`}
        options={OPTIONS.requests}
        data={aligned(charts.requests)}
      />
      <Chart
        title="Platform errors (5xx) per second"
        summary={`Latest minute: ${fmt(last(charts.errors) ?? 0, 'errors/s')}.`}
        options={OPTIONS.errors}
        data={aligned(charts.errors.size > 0 ? charts.errors : new Map([...charts.requests.keys()].map((t) => [t, 0])))}
      />
      <Chart
        title="Platform mean latency"
        summary={`Latest minute: ${fmt(last(charts.latency), 'ms', 1)}.`}
        options={OPTIONS.latency}
        data={aligned(charts.latency)}
      />
    </>
  );
}

export function Dashboards() {
  const from = hourAgo();
  return (
    <section className="card" aria-labelledby="dashboards-heading" data-testid="dashboards">
      <h2 id="dashboards-heading">Dashboards (last hour)</h2>
      <div className="charts">
        <TenantRequests from={from} />
        <PlatformCharts from={from} />
      </div>
    </section>
  );
}
