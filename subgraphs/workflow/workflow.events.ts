// What the workflow service tells others. After each committed transition: the lifecycle topic
// named by the transition (`workflow.started`, `step.completed`, `approval.requested`,
// `approval.decided`, `workflow.completed`, ...) and the `workflow.changed` notice that wakes
// subscriptions (which then read the transitions table: pull on notify). On failure and
// compensation, `compliance.workflow_event` for the compliance service. All at most once (the bus);
// the durable records are the transitions table and the outbox.
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { Transition } from './workflow.types';

export const WORKFLOW_CHANGED_TOPIC = 'workflow.changed';
export const COMPLIANCE_TOPIC = 'compliance.workflow_event';

export interface ChangedNotice {
  tenant_id: string;
  workflow_id: string;
  version: number;
  seq: number;
  event: string;
}

export class WorkflowEvents {
  constructor(private readonly bus: Pick<EventBus, 'publish'>, private readonly logger: Logger) {}

  published(t: Transition): void {
    const payload = {
      tenant_id: t.tenantId, workflow_id: t.workflowId, version: t.version, status: t.status, step: t.step, approval_task_id: t.taskId,
      detail: t.detail, at: t.at,
    };
    const notice: ChangedNotice = { tenant_id: t.tenantId, workflow_id: t.workflowId, version: t.version, seq: t.seq, event: t.event };
    this.publish(t.event, payload);
    this.publish(WORKFLOW_CHANGED_TOPIC, notice);
    if (t.event === 'workflow.failed' || t.event === 'workflow.rejected' || t.event === 'workflow.compensating' || t.event === 'step.compensated' || t.event === 'step.compensation_parked') {
      this.publish(COMPLIANCE_TOPIC, { ...payload, event: t.event });
    }
  }

  publish(topic: string, payload: unknown): Promise<void> {
    return this.bus.publish(topic, payload).catch((err: unknown) => this.logger.warn({ err, topic }, 'publishing a workflow event failed'));
  }
}
