// Dead letters (issue 26): a durable subscription's dead-letter queue. Choose a subscription, see
// the messages that used all their deliveries, inspect one (its event, attempts, last error), put
// the selected or all of them back on the queue (redrive, audited by the API in the ledger), or
// replay the subscription from a position or a time. Event data is a publisher's JSON, so it is
// shown as text only (Json): markup in a payload stays markup on the screen.
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { DeadLettersQuery } from '../gql/graphql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

/** One page of the queue; the router's cost limit counts each letter's event. */
const PAGE = 100;

const SUBSCRIPTIONS = graphql(`
  query EventSubscriptions {
    eventSubscriptions {
      name
      topic
      position
      maxDeliveries
    }
  }
`);

const DEAD_LETTERS = graphql(`
  query DeadLetters($name: String!, $limit: Int) {
    eventSubscription(name: $name) {
      name
      topic
      position
      maxDeliveries
      ackTimeoutMs
      backoffMs
      deadLetters(limit: $limit) {
        subscription
        position
        attempts
        lastError
        deadAt
        event {
          id
          type
          subject
          time
        }
      }
    }
  }
`);

const DEAD_LETTER = graphql(`
  query DeadLetter($subscription: String!, $position: Float!) {
    deadLetter(subscription: $subscription, position: $position) {
      subscription
      position
      attempts
      lastError
      deadAt
      event {
        id
        topic
        position
        source
        type
        specversion
        time
        subject
        tenantId
        traceparent
        data
      }
    }
  }
`);

const REDRIVE = graphql(`
  mutation RedriveDeadLetters($subscription: String!, $positions: [Float!]) {
    redriveDeadLetters(subscription: $subscription, positions: $positions)
  }
`);

const REPLAY = graphql(`
  mutation ReplayEventSubscription($name: String!, $from: ReplayFromInput!) {
    replayEventSubscription(name: $name, from: $from)
  }
`);

type Letter = NonNullable<DeadLettersQuery['eventSubscription']>['deadLetters'][number];

function Inspect({ subscription, position }: { subscription: string; position: number }) {
  const { data, loading, error } = useQuery(DEAD_LETTER, { variables: { subscription, position } });
  const letter = data?.deadLetter;
  return (
    <section className="card" aria-labelledby="dead-letter-detail" data-testid="dead-letter-detail">
      <h2 id="dead-letter-detail">Dead letter at position {position}</h2>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="the dead letter" />
      ) : !letter ? (
        <Empty>This message is no longer in the dead-letter queue.</Empty>
      ) : (
        <>
          <dl className="facts">
            <dt>Attempts</dt>
            <dd>{letter.attempts}</dd>
            <dt>Last error</dt>
            <dd data-testid="dead-letter-error">{letter.lastError ?? '—'}</dd>
            <dt>Dead since</dt>
            <dd>{when(letter.deadAt)}</dd>
            <dt>Event id</dt>
            <dd>
              <code>{letter.event.id}</code>
            </dd>
            <dt>Type</dt>
            <dd>{letter.event.type}</dd>
            <dt>Source</dt>
            <dd>{letter.event.source}</dd>
            <dt>Subject</dt>
            <dd>{letter.event.subject ?? '—'}</dd>
            <dt>Published</dt>
            <dd>{when(letter.event.time)}</dd>
            <dt>Trace</dt>
            <dd>{letter.event.traceparent ?? '—'}</dd>
          </dl>
          <h3>Data</h3>
          <Json value={letter.event.data} label={`Data of the dead letter at position ${position}`} />
        </>
      )}
    </section>
  );
}

function Replay({ subscription, onDone }: { subscription: string; onDone(): void }) {
  const [from, setFrom] = useState<'position' | 'time'>('position');
  const [position, setPosition] = useState('0');
  const [time, setTime] = useState('');
  const [replay, { data, loading, error }] = useMutation(REPLAY);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    // datetime-local is the browser's local time without a zone: the API wants RFC 3339.
    const start = from === 'position' ? { afterPosition: Number(position) } : { time: new Date(time).toISOString() };
    const result = await replay({ variables: { name: subscription, from: start } }).catch(() => undefined);
    if (result?.data) onDone();
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="replay-heading">
      <h2 id="replay-heading">Replay {subscription}</h2>
      <p className="muted">
        Moves the subscription back: events after the new position that are neither leased nor dead are delivered again.
      </p>
      <fieldset className="filters">
        <legend>Replay from</legend>
        <label>
          <input type="radio" name="replay-from" checked={from === 'position'} onChange={() => setFrom('position')} /> A
          position
        </label>
        <label>
          <input type="radio" name="replay-from" checked={from === 'time'} onChange={() => setFrom('time')} /> A time
        </label>
      </fieldset>
      {from === 'position' ? (
        <>
          <label htmlFor="replay-position">After position</label>
          <input
            id="replay-position"
            type="number"
            min={0}
            step={1}
            required
            value={position}
            onChange={(e) => setPosition(e.target.value)}
          />
        </>
      ) : (
        <>
          <label htmlFor="replay-time">From the first event at or after</label>
          <input
            id="replay-time"
            type="datetime-local"
            step={1}
            required
            value={time}
            onChange={(e) => setTime(e.target.value)}
          />
        </>
      )}
      <div className="buttons">
        <button type="submit" disabled={loading}>
          Replay
        </button>
      </div>
      <ErrorNote error={error} />
      {data && (
        <p role="status" className="ok">
          Replaying: the subscription resumes after position {data.replayEventSubscription}.
        </p>
      )}
    </form>
  );
}

function Queue({ name }: { name: string }) {
  // A consumer's nack can kill a message at any time; the page looks again every 10 s.
  const { data, loading, error, refetch } = useQuery(DEAD_LETTERS, {
    variables: { name, limit: PAGE },
    pollInterval: 10_000,
  });
  const [selected, setSelected] = useState<number[]>([]);
  const [inspected, setInspected] = useState<number | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [redrive, redriving] = useMutation(REDRIVE);
  const sub = data?.eventSubscription;
  const letters: Letter[] = sub?.deadLetters ?? [];
  const toggle = (position: number) =>
    setSelected((s) => (s.includes(position) ? s.filter((p) => p !== position) : [...s, position]));
  const doRedrive = async (positions: number[] | null) => {
    setNotice(null);
    const result = await redrive({ variables: { subscription: name, positions } }).catch(() => undefined);
    if (!result?.data) return;
    const moved = result.data.redriveDeadLetters;
    setNotice(
      moved.length === 0
        ? 'Nothing was redriven: the messages had already left the queue.'
        : `Redriven: ${moved.length} message${moved.length === 1 ? '' : 's'} back on the queue (position ${moved.join(', ')}).`,
    );
    setSelected([]);
    if (inspected !== null && moved.includes(inspected)) setInspected(null);
    void refetch();
  };
  if (loading && !data) return <Loading what="the dead-letter queue" />;
  return (
    <>
      <ErrorNote error={error} />
      {sub && (
        <p className="muted">
          Topic <code>{sub.topic}</code> · position {sub.position} · {sub.maxDeliveries} deliveries before the
          dead-letter queue · backoff {sub.backoffMs} ms
        </p>
      )}
      {notice && (
        <p role="status" className="ok">
          {notice}
        </p>
      )}
      <ErrorNote error={redriving.error} />
      {letters.length === 0 ? (
        <Empty>No dead letter in this subscription.</Empty>
      ) : (
        <>
          <div className="buttons">
            <button
              type="button"
              disabled={redriving.loading || selected.length === 0}
              onClick={() => doRedrive(selected)}
            >
              Redrive selected ({selected.length})
            </button>
            <button type="button" className="secondary" disabled={redriving.loading} onClick={() => doRedrive(null)}>
              Redrive all
            </button>
          </div>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Dead letters">
            <table>
              <caption>
                {letters.length} dead letter{letters.length === 1 ? '' : 's'}, oldest first
                {letters.length === PAGE ? ` (the first ${PAGE})` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Select</th>
                  <th scope="col">Position</th>
                  <th scope="col">Type and subject</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Dead since</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {letters.map((l) => (
                  <tr key={l.position} data-testid="dead-letter">
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select the dead letter at position ${l.position}`}
                        checked={selected.includes(l.position)}
                        onChange={() => toggle(l.position)}
                      />
                    </td>
                    <td>{l.position}</td>
                    <td>
                      {l.event.type}
                      {l.event.subject ? ` · ${l.event.subject}` : ''}
                    </td>
                    <td>{l.attempts}</td>
                    <td className="wrap">{l.lastError ?? '—'}</td>
                    <td>{when(l.deadAt)}</td>
                    <td>
                      <button
                        type="button"
                        className="secondary"
                        aria-pressed={inspected === l.position}
                        aria-label={`Inspect the dead letter at position ${l.position}`}
                        onClick={() => setInspected(inspected === l.position ? null : l.position)}
                      >
                        Inspect
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <div className="list below">
        {inspected !== null && <Inspect subscription={name} position={inspected} />}
        <Replay subscription={name} onDone={() => void refetch()} />
      </div>
    </>
  );
}

export function DeadLettersPage() {
  const { data, loading, error } = useQuery(SUBSCRIPTIONS);
  const subscriptions = data?.eventSubscriptions ?? [];
  const [name, setName] = useState('');
  // The first subscription is chosen once the list arrives (and again if the chosen one is gone).
  useEffect(() => {
    if (subscriptions.length > 0 && !subscriptions.some((s) => s.name === name)) setName(subscriptions[0]!.name);
  }, [subscriptions, name]);
  return (
    <>
      <h1>Dead letters</h1>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="event subscriptions" />
      ) : subscriptions.length === 0 ? (
        <Empty>No event subscription in this tenant.</Empty>
      ) : (
        <>
          <div className="filters">
            <label htmlFor="dlq-subscription">Subscription</label>
            <select id="dlq-subscription" value={name} onChange={(e) => setName(e.target.value)}>
              {subscriptions.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.topic})
                </option>
              ))}
            </select>
          </div>
          {name && <Queue key={name} name={name} />}
        </>
      )}
    </>
  );
}
