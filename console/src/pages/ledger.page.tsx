// Ledger: the tenant's events with filters, the chain verified, an export of what the filters
// select (JSON, made in the page from the events read). Live: a new event re-reads the list.
import { useState } from 'react';
import { useLazyQuery, useQuery, useSubscription } from '@apollo/client/react';
import { graphql } from '../gql';
import type { LedgerEventFilter } from '../gql/graphql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

const EVENTS = graphql(`
  query LedgerEvents($filter: LedgerEventFilter, $first: Int) {
    ledgerEvents(filter: $filter, first: $first) {
      totalCount
      nodes {
        id
        seq
        eventType
        eventData
        createdAt
        chainHash
        userId
        correlationId
        description
        writtenBy
      }
    }
  }
`);
const VERIFY = graphql(`
  query VerifyLedger {
    verifyLedger {
      valid
      totalEvents
      error
    }
  }
`);
const APPENDED = graphql(`
  subscription LedgerAppended {
    ledgerEventAppended {
      id
      seq
    }
  }
`);

const FIELDS = [
  { key: 'eventType', label: 'Event type', type: 'text' },
  { key: 'userId', label: 'User id', type: 'text' },
  { key: 'correlationId', label: 'Correlation id', type: 'text' },
  { key: 'startTime', label: 'From (inclusive)', type: 'datetime-local' },
  { key: 'endTime', label: 'To (exclusive)', type: 'datetime-local' },
] as const;

type Form = Record<(typeof FIELDS)[number]['key'], string>;

function filterOf(form: Form): LedgerEventFilter {
  const f: LedgerEventFilter = {};
  for (const { key, type } of FIELDS) {
    const v = form[key].trim();
    if (v) f[key] = type === 'datetime-local' ? new Date(v).toISOString() : v;
  }
  return f;
}

export function LedgerPage() {
  const [form, setForm] = useState<Form>({ eventType: '', userId: '', correlationId: '', startTime: '', endTime: '' });
  const [filter, setFilter] = useState<LedgerEventFilter>({});
  const { data, loading, error, refetch } = useQuery(EVENTS, { variables: { filter, first: 200 } });
  const [verify, verified] = useLazyQuery(VERIFY, { fetchPolicy: 'network-only' });
  useSubscription(APPENDED, { onData: () => void refetch() });
  const events = data?.ledgerEvents.nodes ?? [];
  const exportJson = () => {
    const blob = new Blob([JSON.stringify(events, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'ledger-events.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  const v = verified.data?.verifyLedger;
  return (
    <>
      <h1>Ledger</h1>
      <form
        className="filters grid"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(filterOf(form));
        }}
      >
        {FIELDS.map((f) => (
          <div key={f.key}>
            <label htmlFor={`ledger-${f.key}`}>{f.label}</label>
            <input
              id={`ledger-${f.key}`}
              type={f.type}
              value={form[f.key]}
              onChange={(e) => setForm({ ...form, [f.key]: e.target.value })}
            />
          </div>
        ))}
        <div className="buttons">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" onClick={() => void verify()}>
            Verify chain
          </button>
          <button type="button" className="secondary" disabled={events.length === 0} onClick={exportJson}>
            Export JSON
          </button>
        </div>
      </form>
      <ErrorNote error={verified.error} />
      {v && (
        <p role="status" className={v.valid ? 'ok' : 'error'} data-testid="ledger-verification">
          {v.valid
            ? `Chain verified: ${v.totalEvents} events, every hash matches.`
            : `Chain broken: ${v.error ?? 'mismatch'}`}
        </p>
      )}
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="ledger events" />
      ) : events.length === 0 ? (
        <Empty>No event matches.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Ledger events">
          <table>
            <caption>{data?.ledgerEvents.totalCount ?? events.length} events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Seq</th>
                <th scope="col">Type</th>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Description and data</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>{e.seq}</td>
                  <td>{e.eventType}</td>
                  <td>{when(e.createdAt)}</td>
                  <td>{e.writtenBy ?? e.userId ?? '—'}</td>
                  <td>
                    {e.description && <p className="description">{e.description}</p>}
                    <details>
                      <summary>Data and hash</summary>
                      <Json value={e.eventData} label={`Data of event ${e.seq}`} />
                      <code className="wrap">{e.chainHash}</code>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
