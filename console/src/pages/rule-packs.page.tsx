// Rule packs: drafts and packs awaiting review, each with a diff against the previous version;
// certify or reject (the buttons never show to the pack's author, whom the API refuses too), and
// the signature and key id of a certified pack.
import { useState } from 'react';
import { useMutation, useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import type { RulePacksQuery } from '../gql/graphql';
import type { Claims } from '../session/claims';
import { Empty, ErrorNote, Loading, when } from '../ui/states';
import { compareVersions, diffLines } from './text-diff';

const PACKS = graphql(`
  query RulePacks {
    rulePacks(first: 50) {
      nodes {
        id
        version
        status
        author
        ownerTenant
        submittedAt
        certifiedAt
        signature
        keyId
        reviewers
        definition
        decisions {
          decision
          actor
          toState
          notes
          createdAt
        }
      }
    }
  }
`);
const SUBMIT_FOR_REVIEW = graphql(`
  mutation SubmitRulePackForReview($id: ID!, $version: String!) {
    submitRulePackForReview(id: $id, version: $version) {
      id
      version
      status
    }
  }
`);
const CERTIFY = graphql(`
  mutation CertifyRulePack($id: ID!, $version: String!, $notes: String) {
    certifyRulePack(id: $id, version: $version, notes: $notes) {
      id
      version
      status
      signature
      keyId
    }
  }
`);
const REJECT = graphql(`
  mutation RejectRulePack($id: ID!, $version: String!, $notes: String!) {
    rejectRulePack(id: $id, version: $version, notes: $notes) {
      id
      version
      status
    }
  }
`);

type Pack = RulePacksQuery['rulePacks']['nodes'][number];
const text = (definition: unknown) => JSON.stringify(definition, null, 2);

function descriptionOf(definition: unknown): string | undefined {
  const meta = (definition as { metadata?: { description?: unknown; name?: unknown } } | null)?.metadata;
  return typeof meta?.description === 'string' ? meta.description : undefined;
}

function Diff({ before, after }: { before: Pack | undefined; after: Pack }) {
  if (!before) return <p className="muted">First version: nothing to compare with.</p>;
  const lines = diffLines(text(before.definition), text(after.definition));
  return (
    <>
      <p className="muted">
        Against {before.version} ({before.status.toLowerCase()}): <span className="added-key">+ added</span>,{' '}
        <span className="removed-key">− removed</span>.
      </p>
      <pre
        className="diff"
        tabIndex={0}
        role="region"
        aria-label={`Changes from ${before.version} to ${after.version}`}
      >
        {lines.map((l, i) => (
          <span key={i} className={l.kind}>
            {l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '− ' : '  '}
            {l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </>
  );
}

function PackCard({
  pack,
  previous,
  me,
  onChanged,
}: {
  pack: Pack;
  previous: Pack | undefined;
  me: Claims;
  onChanged(): void;
}) {
  const [notes, setNotes] = useState('');
  const [submit, s] = useMutation(SUBMIT_FOR_REVIEW);
  const [certify, c] = useMutation(CERTIFY);
  const [reject, r] = useMutation(REJECT);
  const vars = { id: pack.id, version: pack.version };
  const run = (p: Promise<unknown>) => p.then(onChanged, () => undefined);
  const author = pack.author === me.username;
  const description = descriptionOf(pack.definition);
  return (
    <article className="card" aria-labelledby={`pack-${pack.id}-${pack.version}`} data-testid="rule-pack">
      <h2 id={`pack-${pack.id}-${pack.version}`}>
        {pack.id} {pack.version}
      </h2>
      {description !== undefined && <p className="description">{description}</p>}
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="pack-status">{pack.status}</dd>
        <dt>Author</dt>
        <dd>{pack.author}</dd>
        <dt>Owner tenant</dt>
        <dd>{pack.ownerTenant}</dd>
        <dt>Submitted</dt>
        <dd>{when(pack.submittedAt)}</dd>
        {pack.certifiedAt && (
          <>
            <dt>Certified</dt>
            <dd>
              {when(pack.certifiedAt)} by {pack.reviewers.join(', ')}
            </dd>
          </>
        )}
        {pack.signature && (
          <>
            <dt>Signature</dt>
            <dd>
              <code className="wrap" data-testid="pack-signature">
                {pack.signature}
              </code>
            </dd>
            <dt>Key id</dt>
            <dd>
              <code>{pack.keyId}</code>
            </dd>
          </>
        )}
      </dl>
      <details>
        <summary>Changes against the previous version</summary>
        <Diff before={previous} after={pack} />
      </details>
      {pack.status === 'DRAFT' && author && (
        <button type="button" disabled={s.loading} onClick={() => run(submit({ variables: vars }))}>
          Submit for review
        </button>
      )}
      {pack.status === 'REVIEW' &&
        (author ? (
          <p className="muted">You wrote this pack: another reviewer certifies it.</p>
        ) : (
          <div className="decide">
            <label htmlFor={`pack-notes-${pack.id}-${pack.version}`}>Review notes</label>
            <textarea
              id={`pack-notes-${pack.id}-${pack.version}`}
              value={notes}
              onChange={(e) => setNotes(e.target.value)}
              rows={2}
            />
            <div className="buttons">
              <button
                type="button"
                disabled={c.loading}
                onClick={() => run(certify({ variables: { ...vars, notes: notes || null } }))}
              >
                Certify
              </button>
              <button
                type="button"
                disabled={r.loading || notes.trim() === ''}
                className="secondary"
                onClick={() => run(reject({ variables: { ...vars, notes } }))}
              >
                Reject
              </button>
            </div>
            {notes.trim() === '' && <p className="muted">A rejection needs notes.</p>}
          </div>
        ))}
      <ErrorNote error={s.error ?? c.error ?? r.error} />
    </article>
  );
}

export function RulePacksPage({ me }: { me: Claims }) {
  const [show, setShow] = useState<'open' | 'all'>('open');
  const { data, loading, error, refetch } = useQuery(PACKS);
  const packs = data?.rulePacks.nodes ?? [];
  const previousOf = (p: Pack) =>
    packs
      .filter((q) => q.id === p.id && compareVersions(q.version, p.version) < 0)
      .sort((x, y) => compareVersions(y.version, x.version))[0];
  const shown = packs.filter((p) => show === 'all' || p.status === 'DRAFT' || p.status === 'REVIEW');
  return (
    <>
      <h1>Rule packs</h1>
      <div className="filters">
        <label htmlFor="pack-show">Show</label>
        <select id="pack-show" value={show} onChange={(e) => setShow(e.target.value as 'open' | 'all')}>
          <option value="open">Drafts and reviews</option>
          <option value="all">Every version</option>
        </select>
      </div>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="rule packs" />
      ) : shown.length === 0 ? (
        <Empty>No rule pack is waiting.</Empty>
      ) : (
        <div className="list">
          {shown.map((p) => (
            <PackCard
              key={`${p.id}@${p.version}`}
              pack={p}
              previous={previousOf(p)}
              me={me}
              onChanged={() => void refetch()}
            />
          ))}
        </div>
      )}
    </>
  );
}
