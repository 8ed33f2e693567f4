// The workflow's entries in the tenant's audit ledger, written through the outbox with the change
// they record.
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { Execution } from './workflow.types';

/** The spec's `workflow_execution` ledger event (spec 03): workflow_id, pack_id (as requested), status, steps_executed. */
export function workflowAudit(
  e: Pick<
    Execution,
    'id' | 'tenantId' | 'packId' | 'packVersion' | 'packSource' | 'workflowType' | 'requestedBy' | 'correlationId'
  >,
  status: string,
  stepsExecuted: number,
): AuditEventInput {
  return {
    tenantId: e.tenantId,
    eventType: 'workflow_execution',
    eventData: {
      workflow_id: e.id,
      pack_id: e.packId,
      status,
      steps_executed: stepsExecuted,
      pack_version: e.packVersion,
      pack_source: e.packSource,
      workflow_type: e.workflowType,
    },
    userId: e.requestedBy,
    correlationId: e.correlationId,
    idempotencyKey: `workflow_execution:${e.id}:${status}`,
  };
}
