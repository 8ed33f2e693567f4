// Configuration (docs/config.md): the tenant's effective configuration with the provenance of
// every key (layer, bundle version, change-log position), its bundles, and its rollouts with
// their state; a promotion waiting for a second person links to its task in the approvals inbox
// (the requester cannot decide it there: the workflow refuses). Live: `configChanged` refetches
// the page whenever a change that may touch the tenant is put in force.
// Actions, through the subgraph's mutations (the service decides every right): publish a bundle,
// request a promotion (it waits for a second person's approval: four-eyes stays the workflow's
// and the service's, the page only links to the task), and roll back to an earlier version.
import { useState } from 'react';
import { useMutation, useQuery, useSubscription } from '@apollo/client/react';
import { graphql } from '../gql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

const CONFIG = graphql(`
  query ConfigOverview {
    configEffective {
      tenantId
      seq
      config
      provenance {
        pointer
        layer
        bundleId
        version
        seq
      }
    }
    configBundles(limit: 50) {
      id
      layer
      scope
      namespace
      version
      sha256
      author
      createdAt
    }
    configRollouts(limit: 50) {
      id
      bundleId
      percentage
      hashBy
      status
      requestedBy
      approvedBy
      approvalTaskId
      scheduledAt
      changeSeq
    }
  }
`);

const CHANGED = graphql(`
  subscription ConfigChangedLive {
    configChanged {
      seq
      namespace
      layer
      kind
    }
  }
`);

const PUBLISH = graphql(`
  mutation PublishConfigBundleFromConsole($input: PublishConfigBundleInput!) {
    publishConfigBundle(input: $input) {
      id
      layer
      scope
      namespace
      version
      sha256
    }
  }
`);

const PROMOTE = graphql(`
  mutation PromoteConfigBundleFromConsole($bundleId: ID!, $percentage: Int, $hashBy: String, $scheduledAt: String) {
    promoteConfigBundle(bundleId: $bundleId, percentage: $percentage, hashBy: $hashBy, scheduledAt: $scheduledAt) {
      id
      status
      percentage
      approvalTaskId
    }
  }
`);

const ROLLBACK = graphql(`
  mutation RollbackConfigBundleFromConsole($bundleId: ID!) {
    rollbackConfigBundle(bundleId: $bundleId) {
      seq
      namespace
      kind
    }
  }
`);

const LAYERS = ['tenant', 'platform', 'suite', 'module'] as const;

interface BundleChoice {
  id: string;
  layer: string;
  scope: string;
  namespace: string;
  version: number;
}

const bundleLabel = (b: BundleChoice) =>
  `${b.namespace} v${b.version} (${b.layer}${b.layer === 'tenant' || !b.scope ? '' : ` ${b.scope}`})`;

/** Publishes a new version of a namespace at a layer; the same content again returns the stored version. */
function PublishForm({ onPublished }: { onPublished(bundleId: string): void }) {
  const [layer, setLayer] = useState<(typeof LAYERS)[number]>('tenant');
  const [scope, setScope] = useState('');
  const [namespace, setNamespace] = useState('');
  const [content, setContent] = useState('{\n  \n}');
  const [invalid, setInvalid] = useState<string>();
  const [publish, { data, loading, error, reset }] = useMutation(PUBLISH);
  const needsScope = layer === 'suite' || layer === 'module';
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    reset();
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (err) {
      setInvalid(`The content is not JSON: ${(err as Error).message}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      setInvalid('The content must be a JSON object (the namespace’s keys).');
      return;
    }
    setInvalid(undefined);
    const input = {
      layer,
      namespace: namespace.trim(),
      content: parsed,
      ...(needsScope ? { scope: scope.trim() } : {}),
    };
    const result = await publish({ variables: { input } }).catch(() => undefined);
    if (result?.data) onPublished(result.data.publishConfigBundle.id);
  };
  const published = data?.publishConfigBundle;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="cfg-publish">
      <h2 id="cfg-publish">Publish a bundle</h2>
      <p className="muted">
        A new immutable version of one namespace, checked against the namespace’s schema. It is not in force until a
        promotion of it is approved.
      </p>
      <label htmlFor="cfg-publish-layer">Layer</label>
      <select id="cfg-publish-layer" value={layer} onChange={(e) => setLayer(e.target.value as typeof layer)}>
        {LAYERS.map((l) => (
          <option key={l} value={l}>
            {l === 'tenant' ? 'tenant (this tenant)' : `${l} (platform operators)`}
          </option>
        ))}
      </select>
      {needsScope && (
        <>
          <label htmlFor="cfg-publish-scope">{layer === 'suite' ? 'Suite' : 'Module'}</label>
          <input id="cfg-publish-scope" required value={scope} onChange={(e) => setScope(e.target.value)} />
        </>
      )}
      <label htmlFor="cfg-publish-namespace">Namespace</label>
      <input
        id="cfg-publish-namespace"
        required
        pattern="[a-z][a-z0-9_\-]*"
        title="Lower-case letters, digits, _ and -, starting with a letter"
        value={namespace}
        onChange={(e) => setNamespace(e.target.value)}
      />
      <label htmlFor="cfg-publish-content">Content (JSON object)</label>
      <textarea
        id="cfg-publish-content"
        rows={6}
        required
        spellCheck={false}
        value={content}
        onChange={(e) => setContent(e.target.value)}
      />
      <div className="buttons">
        <button type="submit" disabled={loading}>
          Publish
        </button>
      </div>
      {invalid && (
        <div role="alert" className="error">
          <p>
            <strong>{invalid}</strong>
          </p>
        </div>
      )}
      <ErrorNote error={error} />
      {published && (
        <p role="status" className="ok">
          Published {bundleLabel(published)}, SHA-256 <code>{published.sha256.slice(0, 12)}…</code>. Request its
          promotion below.
        </p>
      )}
    </form>
  );
}

/** Requests a promotion: a share of tenants (or users), applied once someone else approves it. */
function PromoteForm({
  bundles,
  chosen,
  onChoose,
  onRequested,
}: {
  bundles: BundleChoice[];
  chosen: string;
  onChoose(id: string): void;
  onRequested(): void;
}) {
  const [percentage, setPercentage] = useState('100');
  const [hashBy, setHashBy] = useState<'tenant' | 'user'>('tenant');
  const [at, setAt] = useState('');
  const [promote, { data, loading, error, reset }] = useMutation(PROMOTE);
  const bundleId = chosen || bundles[0]?.id || '';
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    reset();
    const result = await promote({
      variables: {
        bundleId,
        percentage: Number(percentage),
        hashBy,
        // datetime-local is the browser's local time without a zone: the API wants ISO 8601.
        scheduledAt: at ? new Date(at).toISOString() : undefined,
      },
    }).catch(() => undefined);
    if (result?.data) onRequested();
  };
  const requested = data?.promoteConfigBundle;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="cfg-promote">
      <h2 id="cfg-promote">Request a promotion</h2>
      <p className="muted">
        The promotion applies only once a second person approves it in the approvals inbox; you cannot approve your own.
      </p>
      {bundles.length === 0 ? (
        <Empty>Publish a bundle first.</Empty>
      ) : (
        <>
          <label htmlFor="cfg-promote-bundle">Bundle</label>
          <select id="cfg-promote-bundle" value={bundleId} onChange={(e) => onChoose(e.target.value)}>
            {bundles.map((b) => (
              <option key={b.id} value={b.id}>
                {bundleLabel(b)}
              </option>
            ))}
          </select>
          <label htmlFor="cfg-promote-percentage">Share (%)</label>
          <input
            id="cfg-promote-percentage"
            type="number"
            min={1}
            max={100}
            step={1}
            required
            value={percentage}
            onChange={(e) => setPercentage(e.target.value)}
          />
          <label htmlFor="cfg-promote-hash">Bucket by</label>
          <select id="cfg-promote-hash" value={hashBy} onChange={(e) => setHashBy(e.target.value as typeof hashBy)}>
            <option value="tenant">tenant</option>
            <option value="user">user</option>
          </select>
          <label htmlFor="cfg-promote-at">Apply at (optional)</label>
          <input
            id="cfg-promote-at"
            type="datetime-local"
            step={1}
            value={at}
            onChange={(e) => setAt(e.target.value)}
          />
          <div className="buttons">
            <button type="submit" disabled={loading || !bundleId}>
              Request promotion
            </button>
          </div>
        </>
      )}
      <ErrorNote error={error} />
      {requested && (
        <p role="status" className="ok">
          Promotion of {requested.percentage}% requested: waiting for a second person’s approval.{' '}
          {requested.approvalTaskId && (
            <a href={`/console/approvals#task-${requested.approvalTaskId}`}>Open its approval task</a>
          )}
        </p>
      )}
    </form>
  );
}

export function ConfigPage() {
  const { data, loading, error, refetch } = useQuery(CONFIG);
  const live = useSubscription(CHANGED, { onData: () => void refetch() });
  const [chosen, setChosen] = useState('');
  const [rollback, rolledBack] = useMutation(ROLLBACK);
  const [rollbackOf, setRollbackOf] = useState<BundleChoice>();
  const bundles = data?.configBundles ?? [];
  const bundleOf = new Map(bundles.map((b) => [b.id, b]));
  const rollBack = async (b: BundleChoice) => {
    rolledBack.reset();
    setRollbackOf(b);
    const result = await rollback({ variables: { bundleId: b.id } }).catch(() => undefined);
    if (result?.data) void refetch();
  };
  return (
    <>
      <h1>Configuration</h1>
      <ErrorNote error={error ?? live.error} />
      {loading && !data ? (
        <Loading what="configuration" />
      ) : !data ? null : (
        <>
          <section aria-labelledby="cfg-effective">
            <h2 id="cfg-effective">
              Effective configuration of {data.configEffective.tenantId}{' '}
              <span className="badge">change {data.configEffective.seq}</span>
            </h2>
            {data.configEffective.provenance.length === 0 ? (
              <Empty>Nothing is configured for this tenant yet.</Empty>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Provenance of each key">
                <table data-testid="config-provenance">
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">Set by layer</th>
                      <th scope="col">Bundle version</th>
                      <th scope="col">Change</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.configEffective.provenance.map((p) => (
                      <tr key={p.pointer}>
                        <td>
                          <code>{p.pointer}</code>
                        </td>
                        <td>{p.layer}</td>
                        <td>
                          v{p.version}
                          {bundleOf.get(p.bundleId) ? ` (${bundleOf.get(p.bundleId)!.author})` : ''}
                        </td>
                        <td>{p.seq}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <Json value={data.configEffective.config} label="Effective configuration" />
          </section>

          <PublishForm
            onPublished={(id) => {
              setChosen(id);
              void refetch();
            }}
          />
          <PromoteForm bundles={bundles} chosen={chosen} onChoose={setChosen} onRequested={() => void refetch()} />

          <section aria-labelledby="cfg-rollouts">
            <h2 id="cfg-rollouts">Rollouts</h2>
            {data.configRollouts.length === 0 ? (
              <Empty>No rollout requested.</Empty>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Rollouts">
                <table data-testid="config-rollouts">
                  <thead>
                    <tr>
                      <th scope="col">Bundle</th>
                      <th scope="col">Share</th>
                      <th scope="col">State</th>
                      <th scope="col">Requested by</th>
                      <th scope="col">Approval</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.configRollouts.map((r) => {
                      const b = bundleOf.get(r.bundleId);
                      return (
                        <tr key={r.id} data-testid="config-rollout">
                          <td>{b ? `${b.namespace} v${b.version} (${b.layer})` : <code>{r.bundleId}</code>}</td>
                          <td>
                            {r.percentage}% by {r.hashBy}
                            {r.scheduledAt ? `, at ${when(r.scheduledAt)}` : ''}
                          </td>
                          <td>
                            <span className={`badge ${r.status}`}>{r.status.replace('_', ' ')}</span>
                            {r.changeSeq ? ` (change ${r.changeSeq})` : ''}
                          </td>
                          <td>{r.requestedBy}</td>
                          <td>
                            {r.status === 'pending_approval' && r.approvalTaskId ? (
                              <a href={`/console/approvals#task-${r.approvalTaskId}`}>Decide in the approvals inbox</a>
                            ) : (
                              (r.approvedBy ?? '—')
                            )}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section aria-labelledby="cfg-bundles">
            <h2 id="cfg-bundles">Bundles</h2>
            <ErrorNote error={rolledBack.error} />
            {rolledBack.data && rollbackOf && (
              <p role="status" className="ok">
                {bundleLabel(rollbackOf)} is back in force for everyone (change{' '}
                {rolledBack.data.rollbackConfigBundle.seq}).
              </p>
            )}
            {bundles.length === 0 ? (
              <Empty>No bundle published.</Empty>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-label="Bundles">
                <table data-testid="config-bundles">
                  <thead>
                    <tr>
                      <th scope="col">Namespace</th>
                      <th scope="col">Layer</th>
                      <th scope="col">Version</th>
                      <th scope="col">SHA-256</th>
                      <th scope="col">Author</th>
                      <th scope="col">Published</th>
                      <th scope="col">Roll back</th>
                    </tr>
                  </thead>
                  <tbody>
                    {bundles.map((b) => (
                      <tr key={b.id}>
                        <td>{b.namespace}</td>
                        <td>
                          {b.layer}
                          {b.scope ? ` ${b.scope}` : ''}
                        </td>
                        <td>v{b.version}</td>
                        <td>
                          <code title={b.sha256}>{b.sha256.slice(0, 12)}…</code>
                        </td>
                        <td>{b.author}</td>
                        <td>{when(b.createdAt)}</td>
                        <td>
                          <button
                            type="button"
                            className="secondary"
                            disabled={rolledBack.loading}
                            aria-label={`Roll back to ${bundleLabel(b)}`}
                            onClick={() => void rollBack(b)}
                          >
                            Roll back
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}
