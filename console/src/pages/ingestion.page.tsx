// Ingestion (issue 32): the tenant's pipelines; a chosen pipeline's versions and its batches, each
// with a progress bar the ingestionBatchProgress subscription keeps current (a batch that starts
// while the page is open appears through it too), and a batch's quarantined records with their
// reasons. Records are already scrubbed by the pipeline's PII policy and shown as text only (Json).
import { useState } from 'react';
import { useQuery, useSubscription } from '@apollo/client/react';
import { graphql } from '../gql';
import type { IngestionBatchStatus, IngestionSchemaChangeStatus } from '../gql/graphql';
import { Empty, ErrorNote, Json, Loading, when } from '../ui/states';

const PIPELINES = graphql(`
  query IngestionPipelines {
    ingestionPipelines(limit: 200) {
      id
      name
      sourceKind
      version
      definition
      updatedAt
    }
  }
`);

const PIPELINE = graphql(`
  query IngestionPipelineDetail($id: ID!) {
    ingestionPipeline(id: $id) {
      id
      name
      version
      versions {
        version
        definitionSha256
        createdBy
        createdAt
      }
      batches(limit: 20) {
        id
        pipelineVersion
        sourceName
        status
        rowsRead
        rowsStaged
        rowsQuarantined
        error
        createdAt
        completedAt
        manifest {
          contentSha256
        }
        schemaChange {
          status
          added
          removed
          reviewer
        }
      }
    }
  }
`);

const PROGRESS = graphql(`
  subscription IngestionBatchProgressLive($pipelineId: ID!) {
    ingestionBatchProgress(pipelineId: $pipelineId) {
      batchId
      status
      rowsRead
      rowsStaged
      rowsQuarantined
    }
  }
`);

const QUARANTINE = graphql(`
  query IngestionQuarantine($id: ID!) {
    ingestionBatch(id: $id) {
      id
      sourceName
      quarantine(limit: 200) {
        offset
        reason
        record
        rawSha256
      }
    }
  }
`);

interface Progress {
  status: IngestionBatchStatus;
  rowsRead: number;
  rowsStaged: number;
  rowsQuarantined: number;
}

/** The format and dataset of a definition (JSON the service validated; read defensively). */
function summaryOf(definition: unknown): { format: string; dataset: string } {
  const d = definition as { format?: { type?: unknown }; target?: { dataset?: unknown } } | null;
  return { format: String(d?.format?.type ?? '—'), dataset: String(d?.target?.dataset ?? '—') };
}

/**
 * How far a batch is: while it runs the total is not known (a source is read as a stream), so the
 * bar is indeterminate and the counts say how many rows are read; once it ends, the bar shows the
 * share of the rows read that were staged.
 */
function ProgressBar({ p, label }: { p: Progress; label: string }) {
  const summary = `${p.rowsRead} read, ${p.rowsStaged} staged, ${p.rowsQuarantined} quarantined`;
  return (
    <div className="ingestion-progress">
      {p.status === 'RUNNING' ? (
        <progress aria-label={`Progress of ${label}`} aria-valuetext={summary} />
      ) : (
        <progress
          aria-label={`Rows of ${label} staged`}
          aria-valuetext={summary}
          max={Math.max(p.rowsRead, 1)}
          value={p.rowsRead === 0 ? 0 : p.rowsStaged}
        />
      )}{' '}
      <span data-testid="ingestion-batch-counts">{summary}</span>
    </div>
  );
}

/** Where a quarantined batch's source schema change stands, and where a reviewer decides it. */
function SchemaChangeNote({
  change,
}: {
  change: { status: IngestionSchemaChangeStatus; added: string[]; removed: string[]; reviewer?: string | null };
}) {
  const diff = `added ${change.added.join(', ') || 'none'}; removed ${change.removed.join(', ') || 'none'}`;
  return (
    <p data-testid="ingestion-schema-change">
      Source schema change ({diff}):{' '}
      {change.status === 'PENDING_APPROVAL' ? (
        <>
          waiting for a second person in the <a href="/console/approvals">approvals inbox</a>; send the source again
          once approved.
        </>
      ) : change.status === 'APPROVED' ? (
        <>approved by {change.reviewer}; send the source again to run it.</>
      ) : change.status === 'REJECTED' ? (
        <>rejected by {change.reviewer}.</>
      ) : (
        <>no approval could be requested; a new pipeline version accepts it.</>
      )}
    </p>
  );
}

function Quarantine({ batchId }: { batchId: string }) {
  const { data, loading, error } = useQuery(QUARANTINE, { variables: { id: batchId } });
  const batch = data?.ingestionBatch;
  return (
    <section className="card" aria-labelledby="ingestion-quarantine" data-testid="ingestion-quarantine">
      <h3 id="ingestion-quarantine">Quarantined records of {batch?.sourceName ?? batchId}</h3>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="quarantined records" />
      ) : !batch ? (
        <Empty>This batch is not visible here.</Empty>
      ) : batch.quarantine.length === 0 ? (
        <Empty>Nothing quarantined: every record was staged.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Quarantined records">
          <table>
            <thead>
              <tr>
                <th scope="col">Offset</th>
                <th scope="col">Reason</th>
                <th scope="col">Record (scrubbed)</th>
                <th scope="col">Raw SHA-256</th>
              </tr>
            </thead>
            <tbody>
              {batch.quarantine.map((q) => (
                <tr key={q.offset} data-testid="ingestion-quarantined">
                  <td>{q.offset}</td>
                  <td>{q.reason}</td>
                  <td>{q.record ? <Json value={q.record} label={`Record at offset ${q.offset}`} /> : '—'}</td>
                  <td>
                    <code>{q.rawSha256.slice(0, 16)}…</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function PipelineDetail({ id }: { id: string }) {
  const { data, loading, error, refetch } = useQuery(PIPELINE, { variables: { id } });
  const [live, setLive] = useState<Record<string, Progress>>({});
  const [quarantineOf, setQuarantineOf] = useState<string | null>(null);
  const pipeline = data?.ingestionPipeline;
  const { error: liveError } = useSubscription(PROGRESS, {
    variables: { pipelineId: id },
    onData: ({ data: event }) => {
      const p = event.data?.ingestionBatchProgress;
      if (!p) return;
      setLive((prev) => ({ ...prev, [p.batchId]: p }));
      // A batch that began after the page loaded: the list is read again to show it.
      if (!pipeline?.batches.some((b) => b.id === p.batchId) || p.status !== 'RUNNING') void refetch();
    },
  });
  return (
    <section className="card" aria-labelledby="ingestion-pipeline-detail" data-testid="ingestion-pipeline-detail">
      <h2 id="ingestion-pipeline-detail">Pipeline {pipeline?.name ?? id}</h2>
      <ErrorNote error={error} />
      <ErrorNote error={liveError} />
      {loading && !data ? (
        <Loading what="the pipeline" />
      ) : !pipeline ? (
        <Empty>This pipeline is not visible here.</Empty>
      ) : (
        <>
          <h3>Versions</h3>
          <div className="table-wrap" tabIndex={0} role="region" aria-label={`Versions of ${pipeline.name}`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Definition SHA-256</th>
                  <th scope="col">By</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {pipeline.versions.map((v) => (
                  <tr key={v.version} data-testid="ingestion-version">
                    <td>
                      v{v.version}
                      {v.version === pipeline.version ? <span className="badge completed">current</span> : null}
                    </td>
                    <td>
                      <code>{v.definitionSha256.slice(0, 16)}…</code>
                    </td>
                    <td>{v.createdBy ?? '—'}</td>
                    <td>{when(v.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Runs and batches</h3>
          <p className="muted" aria-live="polite" data-testid="ingestion-live">
            {Object.values(live).some((p) => p.status === 'RUNNING')
              ? 'A batch is running: its progress updates live.'
              : 'Progress updates live while a batch runs.'}
          </p>
          {pipeline.batches.length === 0 ? (
            <Empty>No batch yet: push or drop a source to this pipeline.</Empty>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label={`Batches of ${pipeline.name}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Source</th>
                    <th scope="col">Version</th>
                    <th scope="col">Status</th>
                    <th scope="col">Progress</th>
                    <th scope="col">Started</th>
                    <th scope="col">Quarantine</th>
                  </tr>
                </thead>
                <tbody>
                  {pipeline.batches.map((b) => {
                    const p = live[b.id] && b.status === 'RUNNING' ? live[b.id]! : b;
                    return (
                      <tr key={b.id} data-testid="ingestion-batch">
                        <td>
                          {b.sourceName}
                          {b.manifest ? (
                            <>
                              <br />
                              <code className="muted">{b.manifest.contentSha256.slice(0, 16)}…</code>
                            </>
                          ) : null}
                        </td>
                        <td>v{b.pipelineVersion}</td>
                        <td>
                          <span className={`badge ${p.status.toLowerCase()}`} data-testid="ingestion-batch-status">
                            {p.status.toLowerCase()}
                          </span>
                          {b.error ? <p className="muted">{b.error}</p> : null}
                          {b.schemaChange ? <SchemaChangeNote change={b.schemaChange} /> : null}
                        </td>
                        <td>
                          <ProgressBar p={p} label={b.sourceName} />
                        </td>
                        <td>{when(b.createdAt)}</td>
                        <td>
                          {p.rowsQuarantined > 0 ? (
                            <button
                              type="button"
                              onClick={() => setQuarantineOf(b.id)}
                              aria-pressed={quarantineOf === b.id}
                            >
                              Quarantined records
                            </button>
                          ) : (
                            '—'
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          {quarantineOf && <Quarantine batchId={quarantineOf} />}
        </>
      )}
    </section>
  );
}

export function IngestionPage() {
  const [chosen, setChosen] = useState<string | null>(null);
  const { data, loading, error } = useQuery(PIPELINES, { pollInterval: 10_000 });
  const pipelines = data?.ingestionPipelines ?? [];
  return (
    <>
      <h1>Ingestion</h1>
      <ErrorNote error={error} />
      {loading && !data ? (
        <Loading what="ingestion pipelines" />
      ) : pipelines.length === 0 ? (
        <Empty>No ingestion pipeline here.</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Ingestion pipelines">
          <table>
            <thead>
              <tr>
                <th scope="col">Pipeline</th>
                <th scope="col">Source</th>
                <th scope="col">Format</th>
                <th scope="col">Dataset</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {pipelines.map((p) => {
                const { format, dataset } = summaryOf(p.definition);
                return (
                  <tr key={p.id} data-testid="ingestion-pipeline">
                    <td>{p.name}</td>
                    <td>{p.sourceKind.toLowerCase().replace(/_/g, ' ')}</td>
                    <td>{format}</td>
                    <td>{dataset}</td>
                    <td>v{p.version}</td>
                    <td>{when(p.updatedAt)}</td>
                    <td>
                      <button type="button" onClick={() => setChosen(p.id)} aria-pressed={chosen === p.id}>
                        Versions and batches
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {chosen && <PipelineDetail key={chosen} id={chosen} />}
    </>
  );
}
