// What the workflow service tells others (the topics and payloads are contracts:
// platform/contracts/workflow.events.ts and compliance.events.ts). With each transaction that
// writes transitions, IN that transaction (the notice outbox): the lifecycle notice named by each
// transition (`workflow.started`, `step.completed`, `approval.requested`, `approval.decided`,
// `workflow.completed`, ...), `compliance.workflow_event` on failure and compensation, and one
// `workflow.changed` notice per execution that wakes subscriptions (which then read the
// transitions table: pull on notify). After the commit the notice relay is woken and publishes
// them, at least once and in order per execution (the notice's subject).
import type { SqlQuery } from '../../platform/db/sql';
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
import { pendingNotice, type PendingNotice } from '../../platform/outbox/notice.writer';
import type { WorkflowStore } from './workflow.store';
import type { Transition } from './workflow.types';

/**
 * One notice of a group write, made before the write (run-write.store.ts inserts it in the same
 * statement): its envelope lacks what only the write decides, which the statement fills in from
 * the transition at `i` of its execution's items: a lifecycle (or compliance) notice's `version`,
 * `status` and `at`; the `workflow.changed` notice's `version` and `seq` (of the last one).
 */
export interface PlannedNotice {
  workflowId: string;
  /** The item (of the execution's write) whose transition completes it. */
  i: number;
  /** Of the execution's items, to find that transition's version. */
  n: number;
  changed: boolean;
  notice: PendingNotice;
}

/** What a group write's execution writes, as far as its notices go. */
export interface NoticedWrite {
  tenantId: string;
  workflowId: string;
  correlationId: string | null;
  items: readonly {
    event: string;
    step?: string | null;
    taskId?: string | null;
    detail?: Record<string, unknown> | null;
  }[];
}

/** The `workflow.changed` notice (the contract's type, under the name the subscriptions use). */
export type ChangedNotice = WorkflowChangedNotice;

const SERVICE = 'workflow';

const forCompliance = (event: string): event is (typeof COMPLIANCE_WORKFLOW_EVENTS)[number] =>
  (COMPLIANCE_WORKFLOW_EVENTS as readonly string[]).includes(event);

/** Order is kept per subject: one subject per execution. */
export const workflowSubject = (workflowId: string) => `workflow/${workflowId}`;

export class WorkflowEvents {
  private readonly bus: Pick<ContractBus, 'publish'>;

  constructor(
    private readonly store: Pick<WorkflowStore, 'appendNotices'>,
    bus: Pick<EventBus, 'publish'>,
    private readonly logger: Logger,
    /** Wakes the notice relay after a commit that wrote notices. */
    private readonly onCommitted: () => void = () => {},
    /** Committed compliance notices, also handed to the compliance service's client (PLATFORM_COMPLIANCE_URL). */
    private readonly forwardCompliance: (notices: readonly PendingNotice[]) => void = () => {},
  ) {
    this.bus = contractPublisher(bus);
  }

  /**
   * The notices of transitions written in the transaction `q`, in order: each one's lifecycle
   * notice (and compliance notice), then ONE `workflow.changed` notice per execution, since a
   * notice is only a wake-up (on PostgreSQL every bus message is a NOTIFY: fewer is cheaper).
   * Resolves with the compliance notices among them: pass them to `committed` once `q` commits.
   */
  async written(
    q: SqlQuery,
    ts: readonly Transition[],
    /** One for all, or each execution's (a group commit's transaction holds several runs). */
    correlationId?: string | null | ReadonlyMap<string, string | null>,
  ): Promise<PendingNotice[]> {
    const notices: PendingNotice[] = [];
    const compliance: PendingNotice[] = [];
    const byExecution = new Map<string, Transition[]>();
    for (const t of ts) {
      const list = byExecution.get(t.workflowId);
      if (list) list.push(t);
      else byExecution.set(t.workflowId, [t]);
    }
    for (const [workflowId, list] of byExecution) {
      const ctx = {
        tenantId: list[0]!.tenantId,
        subject: workflowSubject(workflowId),
        correlationId: correlationId instanceof Map ? correlationId.get(workflowId) : correlationId,
      };
      for (const t of list) {
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
        if (contract) notices.push(pendingNotice(SERVICE, contract, payload, ctx));
        else this.logger.warn({ event: t.event }, 'a workflow transition without an event contract was not announced');
        if (forCompliance(t.event)) {
          const notice = pendingNotice(SERVICE, COMPLIANCE_WORKFLOW_EVENT, { ...payload, event: t.event }, ctx);
          notices.push(notice);
          compliance.push(notice);
        }
      }
      const last = list.at(-1)!;
      const changed: ChangedNotice = {
        tenant_id: last.tenantId,
        workflow_id: last.workflowId,
        version: last.version,
        seq: last.seq,
        event: last.event,
        ...(list.length > 1 ? { events: list.map((t) => t.event) } : {}),
      };
      notices.push(pendingNotice(SERVICE, WORKFLOW_CHANGED, changed, ctx));
    }
    await this.store.appendNotices(q, notices);
    return compliance;
  }

  /**
   * The notices of a group write (the same as `written` gives for its transitions, in the same
   * order per execution), made before the write so that they go out in its statement: one
   * statement and no BEGIN/COMMIT round trips for a group (issue 35 item 3).
   */
  planned(writes: readonly NoticedWrite[]): PlannedNotice[] {
    const planned: PlannedNotice[] = [];
    for (const w of writes) {
      const ctx = { tenantId: w.tenantId, subject: workflowSubject(w.workflowId), correlationId: w.correlationId };
      const n = w.items.length;
      w.items.forEach((item, i) => {
        // Without version, status and at (the statement adds them); the key order of the stored
        // jsonb is its own, so the envelope stored is the one `written` would have stored.
        const payload = {
          tenant_id: w.tenantId,
          workflow_id: w.workflowId,
          step: item.step ?? null,
          approval_task_id: item.taskId ?? null,
          detail: item.detail ?? null,
        } as unknown as WorkflowTransitionPayload;
        const contract = transitionContractOf(item.event);
        if (contract)
          planned.push({
            workflowId: w.workflowId,
            i,
            n,
            changed: false,
            notice: pendingNotice(SERVICE, contract, payload, ctx),
          });
        else
          this.logger.warn({ event: item.event }, 'a workflow transition without an event contract was not announced');
        if (forCompliance(item.event))
          planned.push({
            workflowId: w.workflowId,
            i,
            n,
            changed: false,
            notice: pendingNotice(SERVICE, COMPLIANCE_WORKFLOW_EVENT, { ...payload, event: item.event }, ctx),
          });
      });
      const changed = {
        tenant_id: w.tenantId,
        workflow_id: w.workflowId,
        event: w.items[n - 1]!.event,
        ...(n > 1 ? { events: w.items.map((t) => t.event) } : {}),
      } as unknown as ChangedNotice;
      planned.push({
        workflowId: w.workflowId,
        i: n - 1,
        n,
        changed: true,
        notice: pendingNotice(SERVICE, WORKFLOW_CHANGED, changed, ctx),
      });
    }
    return planned;
  }

  /**
   * The compliance notices among `planned` as the statement stored them (completed from the
   * transitions it wrote: each execution's in version order), for `committed`; none of an
   * execution that did not move.
   */
  plannedCompliance(
    planned: readonly PlannedNotice[],
    written: ReadonlyMap<string, { transitions: Transition[] }>,
  ): PendingNotice[] {
    const compliance: PendingNotice[] = [];
    for (const p of planned) {
      if (p.notice.envelope.type !== COMPLIANCE_WORKFLOW_EVENT.topic) continue;
      const t = written.get(p.workflowId)?.transitions[p.i];
      if (!t) continue;
      const data = p.notice.envelope.data as Record<string, unknown>;
      compliance.push({
        ...p.notice,
        envelope: { ...p.notice.envelope, data: { ...data, version: t.version, status: t.status, at: t.at } },
      });
    }
    return compliance;
  }

  /**
   * The transaction that wrote notices committed: the relay publishes them now, and its compliance
   * notices (what `written` answered; only committed ones, never a rolled-back transaction's) go
   * to the compliance client too.
   */
  committed(compliance: readonly PendingNotice[] = []): void {
    this.onCommitted();
    if (compliance.length > 0) this.forwardCompliance(compliance);
  }

  /**
   * Straight to the bus, at most once: only the `notify` action's `workflow.notification`, which
   * reports no committed change (a step's message, deduplicated by its own idempotency key).
   */
  publish<C extends EventContract>(contract: C, payload: PayloadOf<C>): Promise<void> {
    return this.bus
      .publish(contract, payload)
      .catch((err: unknown) => this.logger.warn({ err, topic: contract.topic }, 'publishing a workflow event failed'));
  }
}
