// Compliance reports: the tenant's reports, generating one (framework and quarter, or a start and
// end), a report's verdicts per control, its exports (OSCAL assessment results from the subgraph;
// the HTML document from the REST door, opened as text-safe HTML in a new tab), submitting it for
// review (the sign-off task's state in the workflow, linked to the approvals inbox), and the
// reviewer's sign-off. The sign-off buttons never show to the report's generator
// (the API refuses it too: four eyes).
import { useState } from 'react';
import { useLazyQuery, useMutation, useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { ComplianceReportDecision, ReportDetailQuery } from '../gql/graphql';
import { accessToken } from '../session/session';
import type { Claims } from '../session/claims';
import { Empty, ErrorNote, Loading, when } from '../ui/states';

const LIST = graphql(`
  query ComplianceReportList {
    complianceFrameworks {
      key
      title
    }
    complianceReports(first: 100) {
      reports {
        id
        framework
        reportType
        period {
          label
        }
        status
        result
        generatedBy
        generatedAt
      }
      nextCursor
    }
  }
`);

const DETAIL = graphql(`
  query ReportDetail($id: ID!) {
    complianceReport(id: $id) {
      id
      framework
      reportType
      period {
        start
        end
        label
      }
      status
      result
      summary {
        controls
        satisfied
        notSatisfied
        fresh
        expiring
        stale
        evidenceItems
        unrecorded
      }
      checkpoint
      contentSha256
      generatedBy
      generatedAt
      reviewedBy
      reviewedAt
      reviewNotes
      ledgerEntryId
      documentPath
      workflowId
      approvalTaskId
      controls {
        controlId
        title
        satisfied
        freshness
        evidenceCount
        lastCollectedAt
      }
    }
  }
`);

// The sign-off's approval task, read from the workflow subgraph through the router.
const APPROVAL = graphql(`
  query ReportApprovalTask($id: ID!) {
    approvalTask(id: $id) {
      id
      status
      reviewer
      reviewerRole
      decidedAt
    }
  }
`);

const OSCAL = graphql(`
  query ReportOscal($id: ID!) {
    complianceReport(id: $id) {
      id
      oscal
    }
  }
`);

const GENERATE = graphql(`
  mutation GenerateComplianceReport($input: ComplianceGenerateReportInput!) {
    generateComplianceReport(input: $input) {
      id
      status
      result
    }
  }
`);

const SUBMIT = graphql(`
  mutation SubmitComplianceReport($id: ID!) {
    submitComplianceReport(id: $id) {
      id
      status
      workflowId
      approvalTaskId
    }
  }
`);

const SIGN_OFF = graphql(`
  mutation SignOffComplianceReport($id: ID!, $decision: ComplianceReportDecision!, $notes: String) {
    signOffComplianceReport(id: $id, decision: $decision, notes: $notes) {
      id
      status
      reviewedBy
      reviewedAt
      reviewNotes
      ledgerEntryId
    }
  }
`);

type Report = NonNullable<ReportDetailQuery['complianceReport']>;

function download(name: string, body: string, type: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([body], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The HTML document needs the bearer token, so it is fetched here and shown from a blob. */
async function openDocument(path: string): Promise<void> {
  const token = accessToken();
  const res = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw new Error(`The document could not be fetched (${res.status})`);
  const url = URL.createObjectURL(new Blob([await res.text()], { type: 'text/html' }));
  window.open(url, '_blank', 'noopener');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function Generate({ frameworks, onDone }: { frameworks: { key: string; title: string }[]; onDone(id: string): void }) {
  const [framework, setFramework] = useState('');
  const [period, setPeriod] = useState('');
  const [generate, { loading, error }] = useMutation(GENERATE);
  return (
    <form
      className="filters grid"
      aria-label="Generate a report"
      onSubmit={(e) => {
        e.preventDefault();
        void generate({ variables: { input: { framework: framework || (frameworks[0]?.key ?? ''), period } } })
          .then((r) => r.data && onDone(r.data.generateComplianceReport.id))
          .catch(() => undefined);
      }}
    >
      <div>
        <label htmlFor="report-framework">Framework</label>
        <select id="report-framework" value={framework} onChange={(e) => setFramework(e.target.value)}>
          {frameworks.map((f) => (
            <option key={f.key} value={f.key}>
              {f.title} ({f.key})
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="report-period">Quarter</label>
        <input
          id="report-period"
          placeholder="2026-Q3"
          value={period}
          onChange={(e) => setPeriod(e.target.value)}
          required
        />
      </div>
      <div className="buttons">
        <button type="submit" disabled={loading || frameworks.length === 0}>
          Generate report
        </button>
      </div>
      <ErrorNote error={error} />
    </form>
  );
}

function Review({ report, me }: { report: Report; me: Claims }) {
  const [notes, setNotes] = useState('');
  const [submit, submitted] = useMutation(SUBMIT);
  const [signOff, signed] = useMutation(SIGN_OFF);
  const decide = (decision: ComplianceReportDecision) =>
    void signOff({ variables: { id: report.id, decision, notes: notes || null } }).catch(() => undefined);
  if (report.status === 'GENERATED')
    return (
      <div className="buttons">
        <button type="button" onClick={() => void submit({ variables: { id: report.id } }).catch(() => undefined)}>
          Submit for review
        </button>
        <ErrorNote error={submitted.error} />
      </div>
    );
  if (report.status !== 'PENDING_REVIEW') return null;
  if (report.generatedBy === me.username)
    return <p className="muted">You generated this report: another reviewer signs it off.</p>;
  return (
    <div className="decide">
      <label htmlFor={`report-notes-${report.id}`}>Review notes</label>
      <textarea id={`report-notes-${report.id}`} rows={2} value={notes} onChange={(e) => setNotes(e.target.value)} />
      <div className="buttons">
        <button type="button" disabled={signed.loading} onClick={() => decide('APPROVE')}>
          Sign off
        </button>
        <button type="button" className="secondary" disabled={signed.loading} onClick={() => decide('REJECT')}>
          Reject
        </button>
      </div>
      <ErrorNote error={signed.error} />
    </div>
  );
}

/** The sign-off task's state in the workflow, with a link to it in the approvals inbox. */
function SignOffTask({ taskId }: { taskId: string }) {
  const { data, error } = useQuery(APPROVAL, { variables: { id: taskId }, fetchPolicy: 'network-only' });
  const task = data?.approvalTask;
  return (
    <>
      <dt>Sign-off task</dt>
      <dd data-testid="report-approval-task">
        <span data-testid="report-approval-state">{task ? task.status : error ? 'unavailable' : '…'}</span>
        {task?.reviewerRole ? ` (role ${task.reviewerRole})` : ''}
        {task?.reviewer ? ` by ${task.reviewer}, ${when(task.decidedAt)}` : ''}{' '}
        <a href={`/console/approvals#task-${taskId}`}>Open in the approvals inbox</a>
        <ErrorNote error={error} />
      </dd>
    </>
  );
}

function Detail({ id, me }: { id: string; me: Claims }) {
  const { data, loading, error } = useQuery(DETAIL, { variables: { id } });
  const [fetchOscal, oscal] = useLazyQuery(OSCAL, { fetchPolicy: 'network-only' });
  const [docError, setDocError] = useState<unknown>(null);
  const r = data?.complianceReport;
  if (loading && !r) return <Loading what="the report" />;
  if (!r) return <ErrorNote error={error} />;
  const s = r.summary;
  return (
    <section className="card" aria-labelledby="report-detail" data-testid="report-detail">
      <h2 id="report-detail">
        {r.framework} {r.period.label}
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="report-status">{r.status.toLowerCase().replace('_', ' ')}</dd>
        <dt>Result</dt>
        <dd data-testid="report-result">
          {r.result?.toLowerCase() ?? '—'}: {s.satisfied} of {s.controls} controls satisfied
        </dd>
        <dt>Freshness</dt>
        <dd>
          {s.fresh} fresh, {s.expiring} expiring, {s.stale} stale; {s.evidenceItems} evidence items ({s.unrecorded} not
          in the ledger)
        </dd>
        <dt>Generated</dt>
        <dd>
          {when(r.generatedAt)} by {r.generatedBy ?? 'the service'}
        </dd>
        {r.approvalTaskId && <SignOffTask key={`${r.approvalTaskId}-${r.status}`} taskId={r.approvalTaskId} />}
        <dt>Reviewed</dt>
        <dd>{r.reviewedBy ? `${when(r.reviewedAt)} by ${r.reviewedBy}: ${r.reviewNotes ?? ''}` : 'not yet'}</dd>
        <dt>Ledger entry</dt>
        <dd>
          <code data-testid="report-ledger-entry">{r.ledgerEntryId ?? 'written at sign-off'}</code>
        </dd>
        <dt>Content SHA-256</dt>
        <dd>
          <code>{r.contentSha256}</code>
        </dd>
      </dl>
      <Review report={r} me={me} />
      <div className="buttons">
        <button
          type="button"
          className="secondary"
          onClick={() =>
            void fetchOscal({ variables: { id } }).then((res) => {
              const doc = res.data?.complianceReport?.oscal;
              if (doc) download(`report-${id}.oscal.json`, JSON.stringify(doc, null, 2), 'application/json');
            })
          }
        >
          Export OSCAL
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => void openDocument(r.documentPath).catch((e: unknown) => setDocError(e))}
        >
          Open document (print to PDF)
        </button>
      </div>
      <ErrorNote error={oscal.error ?? docError} />
      <table>
        <caption>Controls</caption>
        <thead>
          <tr>
            <th scope="col">Control</th>
            <th scope="col">Title</th>
            <th scope="col">Verdict</th>
            <th scope="col">Freshness</th>
            <th scope="col">Evidence</th>
            <th scope="col">Last collected</th>
          </tr>
        </thead>
        <tbody>
          {r.controls.map((c) => (
            <tr key={c.controlId}>
              <td>{c.controlId}</td>
              <td>{c.title}</td>
              <td className={c.satisfied ? 'ok' : 'error'}>{c.satisfied ? 'satisfied' : 'not satisfied'}</td>
              <td>{c.freshness.toLowerCase()}</td>
              <td>{c.evidenceCount}</td>
              <td>{when(c.lastCollectedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function ReportsPage({ me }: { me: Claims }) {
  const { data, loading, error, refetch } = useQuery(LIST);
  const [selected, setSelected] = useState<string | null>(null);
  const reports = data?.complianceReports.reports ?? [];
  return (
    <>
      <h1>Compliance reports</h1>
      <Generate
        frameworks={data?.complianceFrameworks ?? []}
        onDone={(id) => {
          setSelected(id);
          void refetch();
        }}
      />
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="reports" />
      ) : reports.length === 0 ? (
        <Empty>No reports yet: generate one above.</Empty>
      ) : (
        <table data-testid="report-list">
          <caption>Reports, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Framework</th>
              <th scope="col">Period</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Result</th>
              <th scope="col">Generated</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={r.id}>
                <td>{r.framework}</td>
                <td>{r.period.label}</td>
                <td>{r.reportType}</td>
                <td>{r.status.toLowerCase().replace('_', ' ')}</td>
                <td>{r.result?.toLowerCase() ?? '—'}</td>
                <td>
                  {when(r.generatedAt)} by {r.generatedBy ?? 'the service'}
                </td>
                <td>
                  <button type="button" className="secondary" onClick={() => setSelected(r.id)}>
                    View {r.framework} {r.period.label}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {selected && <Detail key={selected} id={selected} me={me} />}
    </>
  );
}
