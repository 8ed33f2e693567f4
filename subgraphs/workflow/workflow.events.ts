// What the workflow service tells others (the topics and payloads are contracts:
// platform/contracts/workflow.events.ts and compliance.events.ts). After each committed transition:
// the lifecycle topic named by the transition (`workflow.started`, `step.completed`,
// `approval.requested`, `approval.decided`, `workflow.completed`, ...) and the `workflow.changed`
// notice that wakes subscriptions (which then read the transitions table: pull on notify). On
// failure and compensation, `compliance.workflow_event` for the compliance service. All at most
// once (the bus); the durable records are the transitions table and the outbox.
import { COMPLIANCE_WORKFLOW_EVENT, COMPLIANCE_WORKFLOW_EVENTS } from '../../platform/contracts/compliance.events';
import type { EventContract, PayloadOf } from '../../platform/contracts/event-contract';
import {
  transitionContractOf,
  WORKFLOW_CHANGED,
  type WorkflowChangedNotice,
  type WorkflowTransitionPayload,
} from '../../platform/contracts/workflow.events';
import { contractPublisher, type ContractBus } from '../../platform/events/contract-bus';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { Transition } from './workflow.types';

/** The `workflow.changed` notice (the contract's type, under the name the subscriptions use). */
export type ChangedNotice = WorkflowChangedNotice;

const forCompliance = (event: string): event is (typeof COMPLIANCE_WORKFLOW_EVENTS)[number] =>
  (COMPLIANCE_WORKFLOW_EVENTS as readonly string[]).includes(event);

export class WorkflowEvents {
  private readonly bus: Pick<ContractBus, 'publish'>;

  constructor(
    bus: Pick<EventBus, 'publish'>,
    private readonly logger: Logger,
  ) {
    this.bus = contractPublisher(bus);
  }

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
      const payload: WorkflowTransitionPayload = {
        tenant_id: t.tenantId,
        workflow_id: t.workflowId,
        version: t.version,
        status: t.status,
        step: t.step,
        approval_task_id: t.taskId,
        detail: t.detail,
        at: t.at,
      };
      const contract = transitionContractOf(t.event);
      // Every transition the executor writes has a contract (the guard test checks the source);
      // one without is still recorded and still wakes subscriptions below, only not announced.
      if (contract) this.publish(contract, payload);
      else this.logger.warn({ event: t.event }, 'a workflow transition without an event contract was not published');
      if (forCompliance(t.event)) this.publish(COMPLIANCE_WORKFLOW_EVENT, { ...payload, event: t.event });
    }
    const notice: ChangedNotice = {
      tenant_id: last.tenantId,
      workflow_id: last.workflowId,
      version: last.version,
      seq: last.seq,
      event: last.event,
      ...(ts.length > 1 ? { events: ts.map((t) => t.event) } : {}),
    };
    this.publish(WORKFLOW_CHANGED, notice);
  }

  publish<C extends EventContract>(contract: C, payload: PayloadOf<C>): Promise<void> {
    return this.bus
      .publish(contract, payload)
      .catch((err: unknown) => this.logger.warn({ err, topic: contract.topic }, 'publishing a workflow event failed'));
  }
}
