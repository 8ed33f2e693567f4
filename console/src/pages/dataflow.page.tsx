// DataFlow (issue 33): the tenant's newest pack runs with their reconciliation counts; a chosen
// run's breaks and unmatched records (PII already masked by the service) and its evidence (the
// SHA-256 the ledger's dataflow_run_completed event carries), with a link to the ledger. Record
// values are a pack's JSON, so they are shown as text only (Json).
import { useState } from 'react';
import { useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

const RUNS = graphql(`
  query DataflowRuns {
    dataflowRuns(first: 20) {
      id
      packId
      packVersion
      triggerKind
      triggerKey
      status
      error
      result
      startedAt
      finishedAt
    }
  }
`);

const RUN = graphql(`
  query DataflowRunDetail($id: ID!) {
    dataflowRun(id: $id) {
      id
      status
      breaks(first: 100) {
        cursor
        reconciliation
        category
        key
        detail
      }
      evidence {
        sha256
        createdAt
        content
      }
    }
  }
`);

interface Counts {
  name: string;
  result: string;
  matched: number;
  unmatched_left: number;
  unmatched_right: number;
  breaks: number;
}

/** The reconciliations' counts from a run's result (JSON the service shapes; read defensively). */
function countsOf(result: unknown): Counts[] {
  const recs = (result as { reconciliations?: unknown[] } | null)?.reconciliations;
  if (!Array.isArray(recs)) return [];
  const n = (v: unknown) => Number((v as { count?: unknown } | undefined)?.count ?? 0);
  return recs.map((r) => {
    const x = r as Record<string, unknown>;
    return {
      name: String(x.name ?? ''),
      result: String(x.result ?? ''),
      matched: n(x.matched),
      unmatched_left: n(x.unmatched_left),
      unmatched_right: n(x.unmatched_right),
      breaks: n(x.breaks),
    };
  });
}

function RunDetail({ id }: { id: string }) {
  const { data, loading, error } = useQuery(RUN, { variables: { id } });
  const run = data?.dataflowRun;
  return (
    <section className="card" aria-labelledby="dataflow-run-detail" data-testid="dataflow-run-detail">
      <h2 id="dataflow-run-detail">Run {id}</h2>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="the run" />
      ) : !run ? (
        <Empty>This run is not visible here.</Empty>
      ) : (
        <>
          <h3>Breaks and unmatched records</h3>
          {run.breaks.length === 0 ? (
            <Empty>No breaks: every record matched.</Empty>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label={`Breaks of ${id}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Reconciliation</th>
                    <th scope="col">Category</th>
                    <th scope="col">Key</th>
                    <th scope="col">Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {run.breaks.map((b) => (
                    <tr key={b.cursor} data-testid="dataflow-break">
                      <td>{b.reconciliation}</td>
                      <td>{b.category}</td>
                      <td>
                        <code>{b.key}</code>
                      </td>
                      <td>
                        <Json value={b.detail} label={`Detail of ${b.key}`} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3>Evidence</h3>
          {run.evidence ? (
            <>
              <dl className="facts">
                <dt>SHA-256</dt>
                <dd>
                  <code data-testid="dataflow-evidence-sha">{run.evidence.sha256}</code>
                </dd>
                <dt>Recorded</dt>
                <dd>{when(run.evidence.createdAt)}</dd>
              </dl>
              <p>
                The ledger holds this run as a <code>dataflow_run_completed</code> event with the same hash:{' '}
                <a href="/console/ledger">open the ledger</a>.
              </p>
              <details>
                <summary>Evidence content</summary>
                <Json value={run.evidence.content} label={`Evidence of ${id}`} />
              </details>
            </>
          ) : (
            <Empty>No evidence yet (the run has not finished).</Empty>
          )}
        </>
      )}
    </section>
  );
}

export function DataflowPage() {
  const [chosen, setChosen] = useState<string | null>(null);
  const { data, loading, error } = useQuery(RUNS, { pollInterval: 5000 });
  const runs = data?.dataflowRuns ?? [];
  return (
    <>
      <h1>DataFlow runs</h1>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="dataflow runs" />
      ) : runs.length === 0 ? (
        <Empty>No dataflow run here.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="DataFlow runs">
          <table>
            <thead>
              <tr>
                <th scope="col">Pack</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col">Matched / breaks / unmatched</th>
                <th scope="col">Started</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => {
                const counts = countsOf(r.result);
                const sum = (k: keyof Omit<Counts, 'name' | 'result'>) => counts.reduce((n, c) => n + c[k], 0);
                return (
                  <tr key={r.id} data-testid="dataflow-run">
                    <td>
                      {r.packId} {r.packVersion}
                    </td>
                    <td>{r.triggerKind}</td>
                    <td>
                      <span className={`badge ${r.status.toLowerCase()}`}>{r.status}</span>
                      {r.error ? `: ${r.error}` : ''}
                    </td>
                    <td>
                      {sum('matched')} / {sum('breaks')} / {sum('unmatched_left') + sum('unmatched_right')}
                    </td>
                    <td>{when(r.startedAt)}</td>
                    <td>
                      <button type="button" onClick={() => setChosen(r.id)} aria-pressed={chosen === r.id}>
                        Breaks and evidence
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {chosen && <RunDetail id={chosen} />}
    </>
  );
}
