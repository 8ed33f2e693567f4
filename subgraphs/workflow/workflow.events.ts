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
  /** The last transition's event. */
  event: string;
  /** Every event of the transitions this notice stands for (one commit may write several). */
  events?: string[];
}

export class WorkflowEvents {
  constructor(private readonly bus: Pick<EventBus, 'publish'>, private readonly logger: Logger) {}

  published(t: Transition): void {
    this.publishedAll([t]);
  }

  /**
   * The transitions of one commit, in order: each one's lifecycle topic (and the compliance
   * topic), then ONE `workflow.changed` notice for them all, since a notice is only a wake-up
   * (on PostgreSQL every bus message is a NOTIFY: fewer of them is fewer statements).
   */
  publishedAll(ts: Transition[]): void {
    const last = ts.at(-1);
    if (!last) return;
    for (const t of ts) {
      const payload = {
        tenant_id: t.tenantId, workflow_id: t.workflowId, version: t.version, status: t.status, step: t.step, approval_task_id: t.taskId,
        detail: t.detail, at: t.at,
      };
      this.publish(t.event, payload);
      if (t.event === 'workflow.failed' || t.event === 'workflow.rejected' || t.event === 'workflow.compensating' || t.event === 'step.compensated' || t.event === 'step.compensation_parked') {
        this.publish(COMPLIANCE_TOPIC, { ...payload, event: t.event });
      }
    }
    const notice: ChangedNotice = {
      tenant_id: last.tenantId, workflow_id: last.workflowId, version: last.version, seq: last.seq, event: last.event, ...(ts.length > 1 ? { events: ts.map((t) => t.event) } : {}),
    };
    this.publish(WORKFLOW_CHANGED_TOPIC, notice);
  }

  publish(topic: string, payload: unknown): Promise<void> {
    return this.bus.publish(topic, payload).catch((err: unknown) => this.logger.warn({ err, topic }, 'publishing a workflow event failed'));
  }
}
