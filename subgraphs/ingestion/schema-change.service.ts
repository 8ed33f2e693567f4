// A source whose columns changed is not guessed at: its batch is quarantined whole and a person
// decides. The request starts the workflow's built-in approval (a human task, docs/workflow.md
// "Human approval") with the sender's own credentials, so the workflow's four-eyes rule keeps the
// sender from approving their own change; connectors' batches ask as the ingestion service.
// Approved by someone else, the pipeline accepts the new columns and the quarantined batch runs
// when its source is sent again; rejected, it stays quarantined. The decision is read from the
// workflow when someone looks (the batch, the pipeline's changes) or the source comes again: no
// poller. A new pipeline version approves a change too, as before.
import { randomUUID } from 'node:crypto';
import type { WorkflowClient } from '../../platform/clients/workflow.client';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import type { Logger } from '../../platform/logging/logger';
import { INGESTION_SCHEMA_CHANGE_EVENT } from './ingestion.audit';
import type { Batch, IngestionCaller, Pipeline, SchemaChange } from './pipeline.types';
import type { SchemaChangeStore } from './schema-change.store';

/** The workflow service's built-in pack whose first step is a human approval (as config's promotions use). */
export const SCHEMA_CHANGE_WORKFLOW_TYPE = 'compliance';

export interface ColumnDrift {
  added: string[];
  removed: string[];
}

export class SchemaChangeService {
  constructor(
    private readonly deps: {
      store: SchemaChangeStore;
      workflow: Pick<WorkflowClient, 'execute' | 'status'>;
      logger: Pick<Logger, 'warn'>;
    },
  ) {}

  /**
   * Asks for a person's approval of the columns a quarantined batch met. A workflow that cannot be
   * asked leaves the change `unrequested` (the batch stays quarantined; a new pipeline version
   * still approves it): the quarantine never waits on the workflow service.
   */
  async request(
    caller: IngestionCaller,
    batch: Batch,
    pipeline: Pipeline,
    columns: string[],
    drift: ColumnDrift,
  ): Promise<SchemaChange> {
    const existing = await this.deps.store.forBatch(batch.tenantId, batch.id);
    if (existing) return existing;
    const sorted = [...columns].sort();
    const requestedBy = caller.auth?.username ?? null;
    let started: { workflow_id: string; approval_task_id: string | null } | null = null;
    try {
      started = await this.deps.workflow.execute(
        { token: caller.token, tenantId: batch.tenantId, correlationId: caller.correlationId },
        {
          workflow_type: SCHEMA_CHANGE_WORKFLOW_TYPE,
          payload: {
            kind: 'ingestion.schema_change',
            pipeline_id: pipeline.id,
            pipeline_name: pipeline.name,
            pipeline_version: pipeline.version,
            batch_id: batch.id,
            source_name: batch.sourceName,
            columns: sorted,
            added: drift.added,
            removed: drift.removed,
          },
          metadata: { source: 'ingestion', requested_by: requestedBy },
        },
        { timeoutMs: 10_000 },
      );
    } catch (err) {
      this.deps.logger.warn(
        { err: (err as Error).message, batchId: batch.id },
        'ingestion: the workflow service could not be asked to approve a source schema change',
      );
    }
    const approvalTaskId = started?.approval_task_id ?? null;
    return this.deps.store.insert(
      {
        id: randomUUID(),
        tenantId: batch.tenantId,
        pipelineId: pipeline.id,
        batchId: batch.id,
        columns: sorted,
        added: drift.added,
        removed: drift.removed,
        status: approvalTaskId ? 'pending_approval' : 'unrequested',
        requestedBy,
        workflowId: started?.workflow_id ?? null,
        approvalTaskId,
      },
      auditEvent(caller, {
        tenantId: batch.tenantId,
        type: INGESTION_SCHEMA_CHANGE_EVENT,
        actor: requestedBy,
        data: {
          decision: 'requested',
          pipeline_id: pipeline.id,
          batch_id: batch.id,
          added: drift.added,
          removed: drift.removed,
          workflow_id: started?.workflow_id ?? null,
        },
      }),
    );
  }

  /** True when a person approved exactly these columns for the pipeline (asking the workflow if it is still pending). */
  async approved(tenantId: string, pipelineId: string, columns: string[]): Promise<boolean> {
    const found = await this.deps.store.forColumns(tenantId, pipelineId, [...columns].sort());
    return found !== null && (await this.sync(found)).status === 'approved';
  }

  /** The change a batch met, as it now stands. */
  async forBatch(tenantId: string, batchId: string): Promise<SchemaChange | null> {
    const found = await this.deps.store.forBatch(tenantId, batchId);
    return found ? this.sync(found) : null;
  }

  /** A pipeline's changes, newest first, pending ones brought up to date. */
  async list(tenantId: string, pipelineId: string, limit: number): Promise<SchemaChange[]> {
    const changes = await this.deps.store.list(tenantId, pipelineId, limit);
    return Promise.all(changes.map((c) => this.sync(c)));
  }

  /**
   * A pending change moved on by its task's decision: approved by someone other than the sender,
   * the pipeline accepts the columns; rejected, the change is closed. Unchanged when the workflow
   * cannot be asked or nobody has decided yet.
   */
  private async sync(change: SchemaChange): Promise<SchemaChange> {
    if (change.status !== 'pending_approval' || !change.workflowId) return change;
    let status;
    try {
      status = await this.deps.workflow.status({ tenantId: change.tenantId }, change.workflowId);
    } catch {
      return change;
    }
    const task = status.approval_tasks.find((t) => t.approval_task_id === change.approvalTaskId);
    const decision = (task?.decision ?? task?.status ?? '').toLowerCase();
    const reviewer = task?.reviewer ?? null;
    let outcome: 'approved' | 'rejected';
    if (decision.startsWith('reject') || status.status === 'rejected') outcome = 'rejected';
    else if (decision.startsWith('approve'))
      // The workflow refuses a sender's own decision; checked here too, so no path accepts one.
      outcome = reviewer && reviewer !== change.requestedBy ? 'approved' : 'rejected';
    else return change;
    const decided = await this.deps.store.decide(
      change.tenantId,
      change.id,
      { status: outcome, reviewer },
      auditEvent(
        { correlationId: change.id },
        {
          tenantId: change.tenantId,
          type: INGESTION_SCHEMA_CHANGE_EVENT,
          actor: reviewer,
          data: {
            decision: outcome,
            pipeline_id: change.pipelineId,
            batch_id: change.batchId,
            columns: change.columns,
            workflow_id: change.workflowId,
          },
        },
      ),
    );
    return decided ?? change;
  }
}
