// Approvals inbox: pending tasks with the workflow's payload (masked by the API), deadline and
// escalations; approve, reject or defer with notes, then the saga followed live. The decide
// buttons never show on the reviewer's own request (the API refuses it too).
import { useState } from 'react';
import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { graphql } from '../gql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';
import type { Claims } from '../session/claims';
import type { ApprovalsInboxQuery } from '../gql/graphql';

type Task = ApprovalsInboxQuery['approvalTasks']['nodes'][number];

const INBOX = graphql(`
  query ApprovalsInbox($status: String) {
    approvalTasks(status: $status, first: 50) {
      nodes {
        id
        workflowId
        workflowType
        step
        payload
        status
        reviewer
        decision
        notes
        createdAt
        decidedAt
        deadlineAt
        escalationLevel
        requestedBy
        reviewerRole
      }
      nextCursor
    }
  }
`);

const REQUESTED = graphql(`
  subscription ApprovalRequested {
    approvalRequested {
      cursor
      event
      task {
        id
      }
    }
  }
`);

const DECIDE = graphql(`
  mutation DecideApproval($taskId: ID!, $decision: String!, $notes: String) {
    decideApproval(taskId: $taskId, decision: $decision, notes: $notes) {
      workflowStatus
      message
      task {
        id
        status
        reviewer
        decision
        notes
        decidedAt
      }
    }
  }
`);

const SAGA = graphql(`
  subscription SagaProgress($workflowId: ID!) {
    workflowStatusChanged(workflowId: $workflowId, afterVersion: 0) {
      workflowId
      version
      event
      status
      step
      at
    }
  }
`);

function Saga({ workflowId }: { workflowId: string }) {
  const [events, setEvents] = useState<{ version: number; event: string; status: string; step?: string | null }[]>([]);
  const { error } = useSubscription(SAGA, {
    variables: { workflowId },
    onData: ({ data }) => {
      const e = data.data?.workflowStatusChanged;
      if (e) setEvents((prev) => (prev.some((p) => p.version === e.version) ? prev : [...prev, e]));
    },
  });
  const last = events[events.length - 1];
  return (
    <section className="saga" aria-labelledby={`saga-${workflowId}`}>
      <h3 id={`saga-${workflowId}`}>Workflow {workflowId}</h3>
      <p aria-live="polite">
        Status: <strong data-testid="saga-status">{last?.status ?? 'waiting for events'}</strong>
      </p>
      <ErrorNote error={error} />
      <ol className="events">
        {events.map((e) => (
          <li key={e.version}>
            {e.event}
            {e.step ? ` (${e.step})` : ''} → {e.status}
          </li>
        ))}
      </ol>
    </section>
  );
}

function TaskCard({ task, me, onDecided }: { task: Task; me: Claims; onDecided(workflowId: string): void }) {
  const [notes, setNotes] = useState('');
  const [decide, { loading, error, data }] = useMutation(DECIDE);
  const own = task.requestedBy !== null && task.requestedBy === me.username;
  const act = async (decision: 'approve' | 'reject' | 'defer') => {
    const result = await decide({ variables: { taskId: task.id, decision, notes: notes || null } }).catch(
      () => undefined,
    );
    if (result?.data) onDecided(task.workflowId);
  };
  const notesId = `notes-${task.id}`;
  return (
    <article className="card" aria-labelledby={`task-${task.id}`} data-testid="approval-task">
      <h2 id={`task-${task.id}`}>
        {task.workflowType}: {task.step}
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{task.status}</dd>
        <dt>Requested by</dt>
        <dd>{task.requestedBy ?? '—'}</dd>
        <dt>Reviewer role</dt>
        <dd>{task.reviewerRole ?? 'any reviewer'}</dd>
        <dt>Deadline</dt>
        <dd>{when(task.deadlineAt)}</dd>
        <dt>Escalations</dt>
        <dd>{task.escalationLevel}</dd>
        <dt>Workflow</dt>
        <dd>
          <code>{task.workflowId}</code>
        </dd>
      </dl>
      <h3>Payload</h3>
      <Json value={task.payload} label={`Payload of task ${task.id}`} />
      {task.status === 'pending' &&
        (own ? (
          <p className="muted">This is your own request: another reviewer decides it.</p>
        ) : (
          <div className="decide">
            <label htmlFor={notesId}>Notes</label>
            <textarea id={notesId} value={notes} onChange={(e) => setNotes(e.target.value)} rows={2} />
            <div className="buttons">
              <button type="button" disabled={loading} onClick={() => act('approve')}>
                Approve
              </button>
              <button type="button" disabled={loading} className="secondary" onClick={() => act('reject')}>
                Reject
              </button>
              <button type="button" disabled={loading} className="secondary" onClick={() => act('defer')}>
                Defer
              </button>
            </div>
          </div>
        ))}
      <ErrorNote error={error} />
      {data && <p role="status">{data.decideApproval.message}</p>}
      {task.decision && (
        <p>
          Decision: {task.decision} by {task.reviewer}
          {task.notes ? ` — ${task.notes}` : ''}
        </p>
      )}
    </article>
  );
}

export function ApprovalsPage({ me }: { me: Claims }) {
  const [status, setStatus] = useState('pending');
  const [followed, setFollowed] = useState<string[]>([]);
  const { data, loading, error, refetch } = useQuery(INBOX, { variables: { status: status || null } });
  // Live: a new or deferred request re-reads the inbox.
  useSubscription(REQUESTED, { onData: () => void refetch() });
  const tasks = data?.approvalTasks.nodes ?? [];
  return (
    <>
      <h1>Approvals inbox</h1>
      <div className="filters">
        <label htmlFor="approval-status">Status</label>
        <select id="approval-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="pending">Pending</option>
          <option value="approved">Approved</option>
          <option value="rejected">Rejected</option>
          <option value="">All</option>
        </select>
      </div>
      {followed.map((id) => (
        <Saga key={id} workflowId={id} />
      ))}
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="approval tasks" />
      ) : tasks.length === 0 ? (
        <Empty>No approval tasks here.</Empty>
      ) : (
        <div className="list">
          {tasks.map((t) => (
            <TaskCard
              key={t.id}
              task={t}
              me={me}
              onDecided={(id) => {
                setFollowed((f) => (f.includes(id) ? f : [id, ...f]));
                void refetch();
              }}
            />
          ))}
        </div>
      )}
    </>
  );
}
