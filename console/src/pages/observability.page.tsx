// Observability (issue 31): key dashboards (observability.dashboards.tsx), search the tenant's spans, open a trace as a waterfall (each span a
// bar placed by its start and length within the trace, indented by depth), the alert rules with
// where they stand, and silences (who, why, until when; a firing alert can be silenced from its
// row, a silence ended early). Span attributes are the redacted ones the service stored.
import { useState } from 'react';
import { useMutation, useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { ObservedTraceQuery } from '../gql/graphql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';
import { Dashboards } from './observability.dashboards';

const SPANS = graphql(`
  query ObservedSpans($service: String, $operation: String, $minDurationMs: Float, $error: Boolean) {
    observedSpans(service: $service, operation: $operation, minDurationMs: $minDurationMs, error: $error, limit: 50) {
      traceId
      spanId
      service
      name
      startTime
      durationMs
      error
    }
  }
`);

const TRACE = graphql(`
  query ObservedTrace($traceId: String!) {
    observedTrace(traceId: $traceId) {
      traceId
      spans {
        spanId
        parentSpanId
        service
        name
        startTime
        durationMs
        error
        attributes
      }
    }
  }
`);

const ALERTS = graphql(`
  query ObservabilityAlerts {
    observabilityAlerts {
      state
      value
      firedAt
      silencedBy
      labels
      rule {
        id
        name
        kind
        metric
        op
        threshold
        windowSeconds
        forSeconds
        severity
        summary
      }
    }
    observabilitySilences {
      id
      matchers
      startsAt
      endsAt
      createdBy
      comment
    }
  }
`);

const SILENCE = graphql(`
  mutation CreateSilence($input: SilenceInput!) {
    createSilence(input: $input) {
      id
    }
  }
`);

const EXPIRE = graphql(`
  mutation ExpireSilence($id: ID!) {
    expireSilence(id: $id) {
      id
    }
  }
`);

type TraceSpan = ObservedTraceQuery['observedTrace']['spans'][number];

/** Depth of each span in its trace (a span whose parent is not in the trace is a root). */
function depths(spans: readonly TraceSpan[]): Map<string, number> {
  const parent = new Map(spans.map((s) => [s.spanId, s.parentSpanId]));
  const depth = new Map<string, number>();
  const of = (id: string, seen = 0): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const p = parent.get(id);
    const d = p && parent.has(p) && seen < 64 ? of(p, seen + 1) + 1 : 0;
    depth.set(id, d);
    return d;
  };
  for (const s of spans) of(s.spanId);
  return depth;
}

function Waterfall({ traceId }: { traceId: string }) {
  const { data, loading, error } = useQuery(TRACE, { variables: { traceId } });
  const [open, setOpen] = useState<string | null>(null);
  const spans = data?.observedTrace.spans ?? [];
  const start = Math.min(...spans.map((s) => Date.parse(s.startTime)));
  const end = Math.max(...spans.map((s) => Date.parse(s.startTime) + s.durationMs));
  const total = Math.max(end - start, 1);
  const depth = depths(spans);
  const chosen = spans.find((s) => s.spanId === open);
  return (
    <section className="card" aria-labelledby="waterfall-heading" data-testid="waterfall">
      <h2 id="waterfall-heading">
        Trace <code>{traceId}</code>
      </h2>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="the trace" />
      ) : spans.length === 0 ? (
        <Empty>No spans.</Empty>
      ) : (
        <>
          <p className="muted">
            {spans.length} spans over {total.toFixed(1)} ms
          </p>
          <ol className="waterfall" style={{ listStyle: 'none', padding: 0 }}>
            {spans.map((s) => {
              const left = ((Date.parse(s.startTime) - start) / total) * 100;
              const width = Math.max((s.durationMs / total) * 100, 0.5);
              return (
                <li key={s.spanId} data-testid="waterfall-span">
                  <button
                    type="button"
                    className="link"
                    onClick={() => setOpen(s.spanId === open ? null : s.spanId)}
                    style={{ paddingLeft: `${(depth.get(s.spanId) ?? 0) * 12}px` }}
                  >
                    {s.service} · {s.name} ({s.durationMs.toFixed(1)} ms){s.error ? ' ⚠ error' : ''}
                  </button>
                  <div style={{ position: 'relative', height: '6px', background: '#eee' }} aria-hidden="true">
                    <div
                      style={{
                        position: 'absolute',
                        left: `${left}%`,
                        width: `${width}%`,
                        height: '100%',
                        background: s.error ? '#b3261e' : '#1a5fb4',
                      }}
                    />
                  </div>
                </li>
              );
            })}
          </ol>
          {chosen && <Json value={chosen.attributes} label={`Attributes of ${chosen.name}`} />}
        </>
      )}
    </section>
  );
}

function TraceSearch({ onOpen }: { onOpen(traceId: string): void }) {
  const [form, setForm] = useState({ service: '', operation: '', minDurationMs: '', error: false });
  const [query, setQuery] = useState(form);
  const { data, loading, error } = useQuery(SPANS, {
    variables: {
      service: query.service || null,
      operation: query.operation || null,
      minDurationMs: query.minDurationMs ? Number(query.minDurationMs) : null,
      error: query.error || null,
    },
  });
  return (
    <section className="card" aria-labelledby="trace-search-heading">
      <h2 id="trace-search-heading">Traces (last hour)</h2>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(form);
        }}
      >
        <label>
          Service <input value={form.service} onChange={(e) => setForm({ ...form, service: e.target.value })} />
        </label>
        <label>
          Operation <input value={form.operation} onChange={(e) => setForm({ ...form, operation: e.target.value })} />
        </label>
        <label>
          At least (ms)
          <input
            type="number"
            min={0}
            value={form.minDurationMs}
            onChange={(e) => setForm({ ...form, minDurationMs: e.target.value })}
          />
        </label>
        <label>
          <input type="checkbox" checked={form.error} onChange={(e) => setForm({ ...form, error: e.target.checked })} />{' '}
          Errors only
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="spans" />
      ) : !data?.observedSpans.length ? (
        <Empty>No spans match.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Started</th>
              <th>Service</th>
              <th>Operation</th>
              <th>Duration</th>
              <th>Trace</th>
            </tr>
          </thead>
          <tbody>
            {data.observedSpans.map((s) => (
              <tr key={s.spanId}>
                <td>{when(s.startTime)}</td>
                <td>{s.service}</td>
                <td>
                  {s.name}
                  {s.error ? ' ⚠' : ''}
                </td>
                <td>{s.durationMs.toFixed(1)} ms</td>
                <td>
                  <button type="button" className="link" onClick={() => onOpen(s.traceId)}>
                    {s.traceId.slice(0, 8)}…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Alerts() {
  // Rules are evaluated every 15 s by default: the list follows.
  const { data, loading, error, refetch } = useQuery(ALERTS, { pollInterval: 15_000 });
  const [silence, silencing] = useMutation(SILENCE);
  const [expire, expiring] = useMutation(EXPIRE);
  const [reason, setReason] = useState('');
  const silenceFor = async (alertname: string) => {
    const endsAt = new Date(Date.now() + 3600_000).toISOString();
    await silence({ variables: { input: { matchers: { alertname }, endsAt, comment: reason } } }).catch(
      () => undefined,
    );
    await refetch();
  };
  return (
    <section className="card" aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">Alerts</h2>
      <ErrorNote error={error ?? silencing.error ?? expiring.error} />
      {loading && !data ? (
        <Loading what="alerts" />
      ) : !data?.observabilityAlerts.length ? (
        <Empty>No alert rules.</Empty>
      ) : (
        <>
          <label>
            Why silence (required to silence)
            <input value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <table data-testid="alerts">
            <thead>
              <tr>
                <th>Rule</th>
                <th>State</th>
                <th>Value</th>
                <th>Condition</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.observabilityAlerts.map((a) => (
                <tr key={a.rule.id}>
                  <td>
                    <strong>{a.rule.name}</strong> <span className="muted">{a.rule.severity}</span>
                    <div className="muted">{a.rule.summary}</div>
                  </td>
                  <td data-testid="alert-state">
                    {a.state}
                    {a.silencedBy ? ' (silenced)' : ''}
                  </td>
                  <td>{a.value === null || a.value === undefined ? '—' : a.value.toPrecision(4)}</td>
                  <td>
                    {a.rule.kind} {a.rule.metric} {a.rule.op} {a.rule.threshold} over {a.rule.windowSeconds}s, for{' '}
                    {a.rule.forSeconds}s
                  </td>
                  <td>
                    <button type="button" disabled={!reason.trim()} onClick={() => void silenceFor(a.rule.name)}>
                      Silence 1 h
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>Silences</h3>
      {!data?.observabilitySilences.length ? (
        <Empty>No silence in force.</Empty>
      ) : (
        <ul data-testid="silences">
          {data.observabilitySilences.map((s) => (
            <li key={s.id}>
              <code>{JSON.stringify(s.matchers)}</code> until {when(s.endsAt)} by {s.createdBy}: {s.comment}{' '}
              <button
                type="button"
                onClick={() =>
                  void expire({ variables: { id: s.id } }).then(
                    () => refetch(),
                    () => undefined,
                  )
                }
              >
                End now
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ObservabilityPage() {
  const [traceId, setTraceId] = useState<string | null>(null);
  return (
    <>
      <h1>Observability</h1>
      <Dashboards />
      <Alerts />
      <TraceSearch onOpen={setTraceId} />
      {traceId && <Waterfall traceId={traceId} />}
    </>
  );
}
