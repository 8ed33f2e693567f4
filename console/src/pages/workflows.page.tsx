// Workflows: the newest executions with status, their steps and compensation history (20 at a
// time: the router's cost limit counts every step of every execution).
import { useState } from 'react';
import { useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { WorkflowStatus } from '../gql/graphql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

const EXECUTIONS = graphql(`
  query WorkflowExecutions($status: WorkflowStatus) {
    workflowExecutions(status: $status, first: 20) {
      nodes {
        id
        status
        workflowType
        packId
        packVersion
        requestedBy
        error
        payload
        createdAt
        completedAt
        steps {
          step
          path
          type
          status
          attempts
          error
          compensationStatus
          compensationError
          compensatedAt
        }
        compensation {
          reason
          status
          steps
          parked
        }
      }
    }
  }
`);

const STATUSES: WorkflowStatus[] = ['PENDING_APPROVAL', 'RUNNING', 'COMPENSATING', 'COMPLETED', 'FAILED', 'REJECTED'];

export function WorkflowsPage() {
  const [status, setStatus] = useState<WorkflowStatus | ''>('');
  const { data, loading, error } = useQuery(EXECUTIONS, { variables: { status: status || null }, pollInterval: 5000 });
  const runs = data?.workflowExecutions.nodes ?? [];
  return (
    <>
      <h1>Workflows</h1>
      <div className="filters">
        <label htmlFor="wf-status">Status</label>
        <select id="wf-status" value={status} onChange={(e) => setStatus(e.target.value as WorkflowStatus | '')}>
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase().replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="workflow executions" />
      ) : runs.length === 0 ? (
        <Empty>No workflow execution here.</Empty>
      ) : (
        <div className="list">
          {runs.map((w) => (
            <article key={w.id} className="card" aria-labelledby={`wf-${w.id}`} data-testid="workflow">
              <h2 id={`wf-${w.id}`}>
                {w.workflowType} <span className={`badge ${w.status.toLowerCase()}`}>{w.status}</span>
              </h2>
              <dl className="facts">
                <dt>Id</dt>
                <dd>
                  <code>{w.id}</code>
                </dd>
                <dt>Pack</dt>
                <dd>
                  {w.packId}
                  {w.packVersion ? ` ${w.packVersion}` : ''}
                </dd>
                <dt>Requested by</dt>
                <dd>{w.requestedBy ?? '—'}</dd>
                <dt>Started</dt>
                <dd>{when(w.createdAt)}</dd>
                <dt>Ended</dt>
                <dd>{when(w.completedAt)}</dd>
                {w.error && (
                  <>
                    <dt>Error</dt>
                    <dd>{w.error}</dd>
                  </>
                )}
              </dl>
              <details>
                <summary>Steps ({w.steps.length}) and payload</summary>
                <div className="table-wrap" tabIndex={0} role="region" aria-label={`Steps of ${w.id}`}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Step</th>
                        <th scope="col">Status</th>
                        <th scope="col">Attempts</th>
                        <th scope="col">Compensation</th>
                      </tr>
                    </thead>
                    <tbody>
                      {w.steps.map((s) => (
                        <tr key={s.path}>
                          <td>{s.step}</td>
                          <td>
                            {s.status}
                            {s.error ? `: ${s.error}` : ''}
                          </td>
                          <td>{s.attempts}</td>
                          <td>
                            {s.compensationStatus
                              ? `${s.compensationStatus}${s.compensatedAt ? ` ${when(s.compensatedAt)}` : ''}${s.compensationError ? `: ${s.compensationError}` : ''}`
                              : '—'}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Json value={w.payload} label={`Payload of ${w.id}`} />
              </details>
              {w.compensation && (
                <p>
                  Compensation {w.compensation.status}: {w.compensation.reason}. Undone:{' '}
                  {w.compensation.steps.join(', ') || 'none'}
                  {w.compensation.parked.length ? `; parked for an operator: ${w.compensation.parked.join(', ')}` : ''}.
                </p>
              )}
            </article>
          ))}
        </div>
      )}
    </>
  );
}
