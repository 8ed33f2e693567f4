// Source schema changes waiting for (or given) a person's decision. Deciding one writes its status,
// on approval the pipeline's accepted source columns, and the audit event in one transaction.
// Every read takes the tenant first.
import type { SqlExecutor } from '../../platform/db/sql';
import { sqlOutboxWriter, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { SchemaChange, SchemaChangeStatus } from './pipeline.types';

interface SchemaChangeRow {
  id: string;
  tenant_id: string;
  pipeline_id: string;
  batch_id: string;
  columns: string[] | string;
  added: string[] | string;
  removed: string[] | string;
  status: string;
  requested_by: string | null;
  workflow_id: string | null;
  approval_task_id: string | null;
  reviewer: string | null;
  created_at: Date | string;
  decided_at: Date | string | null;
}

const COLUMNS = `id::text, tenant_id, pipeline_id::text, batch_id::text, columns, added, removed, status,
  requested_by, workflow_id, approval_task_id, reviewer, created_at, decided_at`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const list = (v: string[] | string): string[] => (typeof v === 'string' ? (JSON.parse(v) as string[]) : v);

const change = (r: SchemaChangeRow): SchemaChange => ({
  id: r.id,
  tenantId: r.tenant_id,
  pipelineId: r.pipeline_id,
  batchId: r.batch_id,
  columns: list(r.columns),
  added: list(r.added),
  removed: list(r.removed),
  status: r.status as SchemaChangeStatus,
  requestedBy: r.requested_by,
  workflowId: r.workflow_id,
  approvalTaskId: r.approval_task_id,
  reviewer: r.reviewer,
  createdAt: new Date(r.created_at),
  decidedAt: r.decided_at === null ? null : new Date(r.decided_at),
});

export interface SchemaChangeStore {
  /** Records the change a quarantined batch met (once per batch: a second call returns the first). */
  insert(c: Omit<SchemaChange, 'createdAt' | 'decidedAt' | 'reviewer'>, audit: AuditEventInput): Promise<SchemaChange>;
  forBatch(tenantId: string, batchId: string): Promise<SchemaChange | null>;
  /** The newest change of the pipeline proposing exactly these (sorted) columns. */
  forColumns(tenantId: string, pipelineId: string, columns: string[]): Promise<SchemaChange | null>;
  list(tenantId: string, pipelineId: string, limit: number): Promise<SchemaChange[]>;
  /**
   * A pending change decided: approved, the pipeline accepts its columns. Returns the change as it
   * now stands (another runner may have decided it first: then as that one left it).
   */
  decide(
    tenantId: string,
    id: string,
    decision: { status: 'approved' | 'rejected'; reviewer: string | null },
    audit: AuditEventInput,
  ): Promise<SchemaChange | null>;
}

export function createSchemaChangeStore(sql: SqlExecutor): SchemaChangeStore {
  const byId = async (tenantId: string, id: string) => {
    const res = await sql.query<SchemaChangeRow>(
      `SELECT ${COLUMNS} FROM ingestion_schema_changes WHERE tenant_id = $1 AND id = $2::uuid`,
      [tenantId, id],
    );
    return res.rows[0] ? change(res.rows[0]) : null;
  };
  return {
    async insert(c, audit) {
      return sql.transaction(async (q) => {
        const res = await q.query<SchemaChangeRow>(
          `INSERT INTO ingestion_schema_changes
             (id, tenant_id, pipeline_id, batch_id, columns, added, removed, status, requested_by, workflow_id, approval_task_id)
           VALUES ($1::uuid, $2, $3::uuid, $4::uuid, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11)
           ON CONFLICT (batch_id) DO NOTHING
           RETURNING ${COLUMNS}`,
          [
            c.id,
            c.tenantId,
            c.pipelineId,
            c.batchId,
            JSON.stringify(c.columns),
            JSON.stringify(c.added),
            JSON.stringify(c.removed),
            c.status,
            c.requestedBy,
            c.workflowId,
            c.approvalTaskId,
          ],
        );
        if (!res.rows[0]) {
          const first = await q.query<SchemaChangeRow>(
            `SELECT ${COLUMNS} FROM ingestion_schema_changes WHERE tenant_id = $1 AND batch_id = $2::uuid`,
            [c.tenantId, c.batchId],
          );
          return change(first.rows[0]!);
        }
        await sqlOutboxWriter(q, 'ingestion').append(audit);
        return change(res.rows[0]);
      });
    },

    async forBatch(tenantId, batchId) {
      if (!UUID.test(batchId)) return null;
      const res = await sql.query<SchemaChangeRow>(
        `SELECT ${COLUMNS} FROM ingestion_schema_changes WHERE tenant_id = $1 AND batch_id = $2::uuid`,
        [tenantId, batchId],
      );
      return res.rows[0] ? change(res.rows[0]) : null;
    },

    async forColumns(tenantId, pipelineId, columns) {
      const res = await sql.query<SchemaChangeRow>(
        `SELECT ${COLUMNS} FROM ingestion_schema_changes
         WHERE tenant_id = $1 AND pipeline_id = $2::uuid AND columns = $3::jsonb
         ORDER BY created_at DESC LIMIT 1`,
        [tenantId, pipelineId, JSON.stringify(columns)],
      );
      return res.rows[0] ? change(res.rows[0]) : null;
    },

    async list(tenantId, pipelineId, limit) {
      if (!UUID.test(pipelineId)) return [];
      const res = await sql.query<SchemaChangeRow>(
        `SELECT ${COLUMNS} FROM ingestion_schema_changes WHERE tenant_id = $1 AND pipeline_id = $2::uuid
         ORDER BY created_at DESC LIMIT $3`,
        [tenantId, pipelineId, limit],
      );
      return res.rows.map(change);
    },

    async decide(tenantId, id, decision, audit) {
      const decided = await sql.transaction(async (q) => {
        const res = await q.query<SchemaChangeRow>(
          `UPDATE ingestion_schema_changes SET status = $3, reviewer = $4, decided_at = now()
           WHERE tenant_id = $1 AND id = $2::uuid AND status = 'pending_approval'
           RETURNING ${COLUMNS}`,
          [tenantId, id, decision.status, decision.reviewer],
        );
        const row = res.rows[0];
        if (!row) return null;
        if (decision.status === 'approved')
          await q.query(
            `UPDATE ingestion_pipelines SET source_columns = $3::jsonb, updated_at = now() WHERE tenant_id = $1 AND id = $2::uuid`,
            [tenantId, row.pipeline_id, JSON.stringify(list(row.columns))],
          );
        await sqlOutboxWriter(q, 'ingestion').append(audit);
        return change(row);
      });
      return decided ?? byId(tenantId, id);
    },
  };
}
