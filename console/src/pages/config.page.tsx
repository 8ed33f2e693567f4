// Configuration (docs/config.md): the tenant's effective configuration with the provenance of
// every key (layer, bundle version, change-log position), its bundles, and its rollouts with
// their state; a promotion waiting for a second person links to its task in the approvals inbox
// (the requester cannot decide it there: the workflow refuses). Live: `configChanged` refetches
// the page whenever a change that may touch the tenant is put in force.
import { useQuery, useSubscription } from '@apollo/client/react';
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

export function ConfigPage() {
  const { data, loading, error, refetch } = useQuery(CONFIG);
  const live = useSubscription(CHANGED, { onData: () => void refetch() });
  const bundles = data?.configBundles ?? [];
  const bundleOf = new Map(bundles.map((b) => [b.id, b]));
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
