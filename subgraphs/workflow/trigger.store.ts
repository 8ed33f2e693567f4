// Workflow triggers (workflow_triggers) and the record of what each started
// (workflow_trigger_starts). Every read of a tenant's triggers takes the tenant id first; the one
// sweep over every tenant (the topics the service must consume) says so in its name.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { iso, json } from './workflow.rows';
import type { WorkflowTrigger } from './trigger.types';

const COLUMNS = `id::text, tenant_id, pack_id, pack_version, workflow_type, topic, filter, created_by, created_at`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function triggerRow(r: Record<string, any>): WorkflowTrigger {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    packId: r.pack_id,
    packVersion: r.pack_version,
    workflowType: r.workflow_type,
    topic: r.topic,
    filter: r.filter ?? null,
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
  };
}

export function triggerStore(sql: SqlExecutor) {
  return {
    async insertTrigger(
      q: SqlQuery,
      tenantId: string,
      t: Omit<WorkflowTrigger, 'tenantId' | 'createdAt'>,
    ): Promise<WorkflowTrigger> {
      const res = await q.query(
        `INSERT INTO workflow_triggers (id, tenant_id, pack_id, pack_version, workflow_type, topic, filter, created_by, created_at)
         VALUES ($2::uuid, $1, $3, $4, $5, $6, $7::jsonb, $8, now()) RETURNING ${COLUMNS}`,
        [
          tenantId,
          t.id,
          t.packId,
          t.packVersion,
          t.workflowType,
          t.topic,
          t.filter ? json(t.filter) : null,
          t.createdBy,
        ],
      );
      return triggerRow(res.rows[0]!);
    },

    async triggers(tenantId: string): Promise<WorkflowTrigger[]> {
      const res = await sql.query(
        `SELECT ${COLUMNS} FROM workflow_triggers WHERE tenant_id = $1 ORDER BY created_at, id`,
        [tenantId],
      );
      return res.rows.map(triggerRow);
    },

    async trigger(tenantId: string, id: string): Promise<WorkflowTrigger | undefined> {
      const res = await sql.query(`SELECT ${COLUMNS} FROM workflow_triggers WHERE tenant_id = $1 AND id = $2::uuid`, [
        tenantId,
        id,
      ]);
      return res.rows[0] ? triggerRow(res.rows[0]) : undefined;
    },

    /** The tenant's triggers on one topic (what an event of that tenant's stream may start). */
    async triggersOnTopic(tenantId: string, topic: string): Promise<WorkflowTrigger[]> {
      const res = await sql.query(
        `SELECT ${COLUMNS} FROM workflow_triggers WHERE tenant_id = $1 AND topic = $2 ORDER BY created_at, id`,
        [tenantId, topic],
      );
      return res.rows.map(triggerRow);
    },

    async deleteTrigger(q: SqlQuery, tenantId: string, id: string): Promise<boolean> {
      const res = await q.query(`DELETE FROM workflow_triggers WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]);
      return res.rowCount > 0;
    },

    /** Every topic some tenant has a trigger on: the service consumes each (one platform group per topic). */
    async triggerTopicsAcrossTenants(): Promise<string[]> {
      const res = await sql.query<{ topic: string }>(`SELECT DISTINCT topic FROM workflow_triggers ORDER BY topic`);
      return res.rows.map((r) => r.topic);
    },

    /**
     * Claims (trigger, event) for one execution, in the execution's own transaction: false when
     * the event already started this trigger's workflow (a redelivery), and the caller then
     * inserts nothing.
     */
    async claimTriggerStart(
      q: SqlQuery,
      tenantId: string,
      start: { triggerId: string; eventId: string; workflowId: string },
    ): Promise<boolean> {
      const res = await q.query(
        `INSERT INTO workflow_trigger_starts (tenant_id, trigger_id, event_id, workflow_id, created_at)
         VALUES ($1, $2::uuid, $3, $4::uuid, now()) ON CONFLICT DO NOTHING`,
        [tenantId, start.triggerId, start.eventId, start.workflowId],
      );
      return res.rowCount > 0;
    },

    /** The workflow a (trigger, event) started, if any. */
    async triggerStart(tenantId: string, triggerId: string, eventId: string): Promise<string | undefined> {
      const res = await sql.query<{ workflow_id: string }>(
        `SELECT workflow_id::text FROM workflow_trigger_starts WHERE tenant_id = $1 AND trigger_id = $2::uuid AND event_id = $3`,
        [tenantId, triggerId, eventId],
      );
      return res.rows[0]?.workflow_id;
    },
  };
}
