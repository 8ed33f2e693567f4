// Compliance scanner: the tenant's findings (status, severity, where, the controls they
// evidence) and the suppressions waiting for a second person, each linked to the approvals inbox
// where that person decides (the requester cannot). Locations and details are shown as text.
import { useState } from 'react';
import { useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { ScannerFindingStatus } from '../gql/graphql';
import { Empty, ErrorNote, Loading, when } from '../ui/states';

const FINDINGS = graphql(`
  query ScannerFindings($status: ScannerFindingStatus) {
    scannerFindings(status: $status, limit: 200) {
      id
      ruleId
      severity
      status
      path
      line
      detail
      controls
      firstSeen
      lastSeen
    }
    scannerTargets {
      id
      name
      kind
    }
  }
`);

const PENDING = graphql(`
  query ScannerPendingSuppressions {
    scannerSuppressions(status: PENDING, limit: 100) {
      id
      scope
      fingerprint
      ruleId
      pathGlob
      purl
      owner
      justification
      expiresAt
      requestedBy
      workflowId
      createdAt
    }
  }
`);

const STATUSES: ScannerFindingStatus[] = ['OPEN', 'REOPENED', 'SUPPRESSED', 'FIXED'];

function Findings() {
  const [status, setStatus] = useState<ScannerFindingStatus | ''>('');
  const { data, loading, error } = useQuery(FINDINGS, { variables: { status: status || null }, pollInterval: 10_000 });
  const findings = data?.scannerFindings ?? [];
  return (
    <section aria-labelledby="scanner-findings">
      <h2 id="scanner-findings">Findings</h2>
      <div className="filters">
        <label htmlFor="finding-status">Status</label>
        <select
          id="finding-status"
          value={status}
          onChange={(e) => setStatus(e.target.value as ScannerFindingStatus | '')}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.toLowerCase()}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="findings" />
      ) : findings.length === 0 ? (
        <Empty>No findings here.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Findings">
          <table data-testid="scanner-findings">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Severity</th>
                <th scope="col">Status</th>
                <th scope="col">Where</th>
                <th scope="col">Controls</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {findings.map((f) => (
                <tr key={f.id}>
                  <td>
                    <code>{f.ruleId}</code>
                  </td>
                  <td>{f.severity}</td>
                  <td>{f.status.toLowerCase()}</td>
                  <td>
                    {f.path}
                    {f.line ? `:${f.line}` : ''}
                    {f.detail ? ` (${f.detail})` : ''}
                  </td>
                  <td>{f.controls.join(', ')}</td>
                  <td>{when(f.lastSeen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && (
        <p className="muted">
          Targets: {data.scannerTargets.map((t) => `${t.name} (${t.kind})`).join(', ') || 'none registered'}.
        </p>
      )}
    </section>
  );
}

function PendingSuppressions() {
  const { data, loading, error } = useQuery(PENDING, { pollInterval: 10_000 });
  const pending = data?.scannerSuppressions ?? [];
  return (
    <section aria-labelledby="scanner-pending">
      <h2 id="scanner-pending">Suppressions awaiting approval</h2>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="suppressions" />
      ) : pending.length === 0 ? (
        <Empty>No suppression is waiting for approval.</Empty>
      ) : (
        <div className="list">
          {pending.map((s) => (
            <article key={s.id} className="card" aria-labelledby={`sup-${s.id}`} data-testid="pending-suppression">
              <h3 id={`sup-${s.id}`}>
                {s.scope === 'FINGERPRINT'
                  ? `Finding ${s.fingerprint?.slice(0, 12)}…`
                  : s.scope === 'PURL'
                    ? s.purl
                    : `${s.ruleId} in ${s.pathGlob}`}
              </h3>
              <dl className="facts">
                <dt>Justification</dt>
                <dd>{s.justification}</dd>
                <dt>Owner</dt>
                <dd>{s.owner}</dd>
                <dt>Requested by</dt>
                <dd>{s.requestedBy}</dd>
                <dt>Expires</dt>
                <dd>{when(s.expiresAt)}</dd>
              </dl>
              <p>
                A second person decides it in the <a href="/console/approvals">approvals inbox</a>
                {s.workflowId ? (
                  <>
                    {' '}
                    (workflow <code>{s.workflowId}</code>)
                  </>
                ) : null}
                .
              </p>
            </article>
          ))}
        </div>
      )}
    </section>
  );
}

export function ScannerPage() {
  return (
    <>
      <h1>Compliance scanner</h1>
      <PendingSuppressions />
      <Findings />
    </>
  );
}
