// The workflow service's topics. After each committed transition it publishes the transition on
// the topic named by its event (`workflow.started`, `step.completed`, `approval.requested`, ...),
// then one `workflow.changed` notice that wakes subscriptions (pull on notify: they then read the
// transitions table, so a lost notice loses nothing). The `notify` action of a workflow pack
// publishes `workflow.notification`. All at most once; the durable record is the transitions table.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract, type EventContract } from './event-contract';
import { TenantId, Timestamp } from './contract.types';

/** What a transition's `detail` says per event, in one sentence each (the catalogue's descriptions). */
const TRANSITIONS = {
  'workflow.started': 'A workflow execution was started from a certified workflow pack.',
  'workflow.compensating': 'A workflow execution failed and is undoing its completed steps.',
  'workflow.completed': 'A workflow execution finished every step.',
  'workflow.failed': 'A workflow execution failed (after compensation, if any).',
  'workflow.rejected': 'A workflow execution ended because an approval was rejected.',
  'step.started': 'A step began an attempt.',
  'step.retrying': 'A step attempt failed and will be retried after a delay.',
  'step.failed': 'A step failed for good.',
  'step.completed': 'A step completed.',
  'step.decided': 'A decision step chose its branch.',
  'step.compensating': 'A completed step is being undone.',
  'step.compensation_retrying': 'Undoing a step failed and will be retried.',
  'step.compensation_parked': 'Undoing a step failed for good and was parked for an operator.',
  'step.compensated': 'A completed step was undone.',
  'approval.requested': "A step waits for a person's approval.",
  'approval.decided': 'An approval task was approved or rejected.',
  'approval.escalated': 'An approval task passed its deadline and was escalated.',
} as const;

/** Every transition event; each is also the topic its transition is published on. */
export type WorkflowTransitionEvent = keyof typeof TRANSITIONS;
export const WORKFLOW_TRANSITION_EVENTS = Object.keys(TRANSITIONS) as WorkflowTransitionEvent[];

/** A committed transition (v1): the execution's state after it and what happened. */
export const WorkflowTransitionSchema = Type.Object(
  {
    tenant_id: TenantId,
    workflow_id: Type.String({ minLength: 1 }),
    /** The execution's version after the transition (1, 2, ...): subscriptions resume after one. */
    version: Type.Integer({ minimum: 1 }),
    status: Type.Union([
      Type.Literal('pending_approval'),
      Type.Literal('running'),
      Type.Literal('compensating'),
      Type.Literal('completed'),
      Type.Literal('failed'),
      Type.Literal('rejected'),
    ]),
    step: Type.Union([Type.String(), Type.Null()]),
    approval_task_id: Type.Union([Type.String(), Type.Null()]),
    detail: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    at: Timestamp,
  },
  { $id: 'workflow.transition.v1' },
);
export type WorkflowTransitionPayload = Static<typeof WorkflowTransitionSchema>;

function transitionContract<const T extends WorkflowTransitionEvent>(topic: T) {
  return eventContract({
    topic,
    version: 1,
    schema: WorkflowTransitionSchema,
    producer: 'workflow',
    consumers: [],
    description: TRANSITIONS[topic],
  });
}

export type WorkflowTransitionContract = EventContract<WorkflowTransitionEvent, typeof WorkflowTransitionSchema>;

/** The lifecycle contract of each transition event. */
export const WORKFLOW_TRANSITIONS: {
  readonly [E in WorkflowTransitionEvent]: EventContract<E, typeof WorkflowTransitionSchema>;
} = Object.freeze(
  Object.fromEntries(WORKFLOW_TRANSITION_EVENTS.map((e) => [e, transitionContract(e)])) as {
    [E in WorkflowTransitionEvent]: EventContract<E, typeof WorkflowTransitionSchema>;
  },
);

/** A decision on an approval task: what services waiting on a person's approval consume (compliance sign-offs). */
export const APPROVAL_DECIDED = WORKFLOW_TRANSITIONS['approval.decided'];

/** The contract of a transition event named at run time (a stored row), if it has one. */
export function transitionContractOf(event: string): WorkflowTransitionContract | undefined {
  return Object.hasOwn(WORKFLOW_TRANSITIONS, event)
    ? WORKFLOW_TRANSITIONS[event as WorkflowTransitionEvent]
    : undefined;
}

/** The wake-up notice of one commit (v1): its last transition, and every event when it wrote several. */
export const WorkflowChangedSchema = Type.Object(
  {
    tenant_id: TenantId,
    workflow_id: Type.String({ minLength: 1 }),
    version: Type.Integer({ minimum: 1 }),
    /** The last transition's position in the transitions table. */
    seq: Type.Number({ minimum: 0 }),
    /** The last transition's event. */
    event: Type.String(),
    /** Every event of the transitions this notice stands for (one commit may write several). */
    events: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'workflow.changed.v1' },
);
export type WorkflowChangedNotice = Static<typeof WorkflowChangedSchema>;

export const WORKFLOW_CHANGED = eventContract({
  topic: 'workflow.changed',
  version: 1,
  schema: WorkflowChangedSchema,
  producer: 'workflow',
  consumers: ['workflow'],
  description:
    'Wake-up notice after each commit of transitions: subscriptions (workflowStatusChanged, approvalRequested) then read the transitions table.',
});

/** What the `notify` action of a workflow pack publishes (v1). */
export const WorkflowNotificationSchema = Type.Object(
  {
    tenant_id: TenantId,
    workflow_id: Type.String({ minLength: 1 }),
    step: Type.String(),
    /** The step's `parameters.message` as the pack wrote it (the step's name when it has none). */
    message: Type.Unknown(),
    /** Stable across retries of the step: a consumer acts on each key once. */
    idempotency_key: Type.String({ minLength: 1 }),
  },
  { $id: 'workflow.notification.v1' },
);
export type WorkflowNotification = Static<typeof WorkflowNotificationSchema>;

export const WORKFLOW_NOTIFICATION = eventContract({
  topic: 'workflow.notification',
  version: 1,
  schema: WorkflowNotificationSchema,
  producer: 'workflow',
  consumers: [],
  description:
    "A workflow pack's `notify` step: a message for whoever listens (the events service will forward it to webhooks).",
});
