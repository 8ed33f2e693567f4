// Workflow triggers (spec 03's event-driven cross-suite workflows): a tenant enables a certified
// pack's `trigger` (POST /triggers), and every event of its topic in the tenant's stream whose data
// satisfies its filter starts one execution. `fire` is the durable consumer's handler
// (services/workflow.ts): it runs for every tenant's events of a triggered topic and acts only on
// the triggers of the event's own tenant. Each start claims (trigger, event) in the execution's
// transaction, so redeliveries and competing consumers start one workflow per event.
import { randomUUID } from 'node:crypto';
import { assertScope } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { conditionHolds } from './decision.condition';
import type { WorkflowExecutor } from './execution.scheduler';
import type { CreateTriggerInput, TriggerEvent, WorkflowTrigger } from './trigger.types';
import { WORKFLOW_TYPES, type WorkflowType } from './workflow.types';
import type { Forwarding, WorkflowService } from './workflow.service';
import type { WorkflowStore } from './workflow.store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What one event did to a tenant's triggers (tests, logs). */
export interface FireOutcome {
  started: { triggerId: string; workflowId: string }[];
  /** Triggers whose filter the event's data does not satisfy, or created after the event. */
  skipped: string[];
  /** Triggers that already started a workflow for this event (a redelivery). */
  duplicates: string[];
}

export class TriggerService {
  constructor(
    private readonly deps: {
      store: WorkflowStore;
      workflows: WorkflowService;
      executor: WorkflowExecutor;
      access: TenantAccess;
      /** The workflow service's identity, scoped to the event's tenant: how a triggered start reads the pack. */
      identity: DelegatedIdentity;
      /** A trigger on a topic this process does not consume yet was created. */
      onTopic?: (topic: string) => void;
    },
  ) {}

  private async tenant(caller: Caller, action: string, scope: 'read' | 'write'): Promise<string> {
    if (caller.auth) assertScope(caller.auth, scope);
    return this.deps.access.resolve(caller, undefined, ['header', 'x-tenant-id'], action);
  }

  /** Enables a certified pack's trigger for the caller's tenant, pinned to the version resolved now. */
  async create(caller: Caller, input: CreateTriggerInput, forwarding: Forwarding = {}): Promise<WorkflowTrigger> {
    const issues = [];
    if (typeof input.workflowPackId !== 'string' || input.workflowPackId.length === 0)
      issues.push({ loc: ['workflowPackId'], msg: 'Field required', type: 'missing' });
    if (input.workflowType === undefined || input.workflowType === null)
      issues.push({ loc: ['workflowType'], msg: 'Field required', type: 'missing' });
    else if (!(WORKFLOW_TYPES as readonly string[]).includes(input.workflowType))
      issues.push({
        loc: ['workflowType'],
        msg: `Input should be ${WORKFLOW_TYPES.map((t) => `'${t}'`).join(', ')}`,
        type: 'enum',
      });
    if (issues.length > 0) throw new InputError(issues);
    const tenantId = await this.tenant(caller, 'create a workflow trigger', 'write');
    const workflowType = input.workflowType as WorkflowType;
    const resolved = await this.deps.workflows.resolvePack(
      caller.correlationId,
      tenantId,
      { workflowPackId: input.workflowPackId, workflowPackVersion: input.workflowPackVersion },
      workflowType,
      forwarding,
    );
    // Only a certified registry pack is reviewed work; the built-in packs have no trigger.
    if (resolved.source !== 'registry') throw new NotFoundError(`Workflow pack '${input.workflowPackId}' not found`);
    const trigger = resolved.pack.trigger;
    if (!trigger)
      throw InputError.of(
        ['workflowPackId'],
        `Workflow pack '${resolved.packId}' version ${resolved.packVersion} has no trigger`,
      );
    const { store } = this.deps;
    const created = await store.transaction(async (q) => {
      const row = await store.insertTrigger(q, tenantId, {
        id: randomUUID(),
        packId: resolved.packId,
        packVersion: resolved.packVersion,
        workflowType,
        topic: trigger.topic,
        filter: trigger.filter ?? null,
        createdBy: caller.auth?.username ?? null,
      });
      await store.appendAudit(q, triggerAudit(row, 'created', caller));
      return row;
    });
    this.deps.onTopic?.(created.topic);
    return created;
  }

  async list(caller: Caller): Promise<WorkflowTrigger[]> {
    const tenantId = await this.tenant(caller, 'list workflow triggers', 'read');
    return this.deps.store.triggers(tenantId);
  }

  async get(caller: Caller, id: string): Promise<WorkflowTrigger> {
    const tenantId = await this.tenant(caller, 'read a workflow trigger', 'read');
    const found = UUID.test(id) ? await this.deps.store.trigger(tenantId, id) : undefined;
    if (!found) throw new NotFoundError(`Workflow trigger '${id}' not found`);
    return found;
  }

  /** Stops the trigger; executions it started run on. */
  async remove(caller: Caller, id: string): Promise<void> {
    const tenantId = await this.tenant(caller, 'delete a workflow trigger', 'write');
    const { store } = this.deps;
    const found = UUID.test(id) ? await store.trigger(tenantId, id) : undefined;
    if (!found) throw new NotFoundError(`Workflow trigger '${id}' not found`);
    await store.transaction(async (q) => {
      if (!(await store.deleteTrigger(q, tenantId, id))) throw new NotFoundError(`Workflow trigger '${id}' not found`);
      await store.appendAudit(q, triggerAudit(found, 'deleted', caller));
    });
  }

  /**
   * Starts the workflows an event calls for: the triggers of the event's tenant on its topic whose
   * filter holds on its data. A trigger that cannot start (its pack gone, a payload its schema
   * refuses) does not keep the others from starting; the error is thrown after them, so the
   * consumer redelivers the event (the started ones are not started again) and, after its last
   * delivery, leaves it in the dead-letter queue for an operator.
   */
  async fire(event: TriggerEvent): Promise<FireOutcome> {
    const { store } = this.deps;
    const outcome: FireOutcome = { started: [], skipped: [], duplicates: [] };
    const triggers = await store.triggersOnTopic(event.tenantId, event.topic);
    if (triggers.length === 0) return outcome;
    const data = isObject(event.data) ? event.data : { data: event.data };
    const origin = await this.originTrigger(event.tenantId, data);
    const failures: string[] = [];
    for (const t of triggers) {
      // A workflow's own notices never start its trigger again (workflow.completed starting the
      // pack that completed would loop forever).
      if (origin === t.id) {
        outcome.skipped.push(t.id);
        continue;
      }
      // A trigger starts work for events from its creation on, not for a backlog it never saw.
      if (Date.parse(event.time) < Date.parse(t.createdAt) || (t.filter && !conditionHolds(t.filter, data))) {
        outcome.skipped.push(t.id);
        continue;
      }
      try {
        const started = await this.start(t, event, data);
        if (started) outcome.started.push({ triggerId: t.id, workflowId: started });
        else outcome.duplicates.push(t.id);
      } catch (err) {
        failures.push(`trigger ${t.id} (${t.packId} ${t.packVersion}): ${(err as Error).message}`);
      }
    }
    if (failures.length > 0) throw new Error(`workflow triggers failed: ${failures.join('; ')}`);
    return outcome;
  }

  /** The trigger that started the workflow an event is about (a workflow notice's `workflow_id`), if any. */
  private async originTrigger(tenantId: string, data: Record<string, unknown>): Promise<string | undefined> {
    const workflowId = data.workflow_id;
    if (typeof workflowId !== 'string' || !UUID.test(workflowId)) return undefined;
    const execution = await this.deps.store.execution(tenantId, workflowId);
    const trigger = (execution?.metadata as { trigger?: { trigger_id?: unknown } } | undefined)?.trigger;
    return typeof trigger?.trigger_id === 'string' ? trigger.trigger_id : undefined;
  }

  /** One trigger's start for one event: the workflow's id, or null when this event started it already. */
  private async start(
    t: WorkflowTrigger,
    event: TriggerEvent,
    payload: Record<string, unknown>,
  ): Promise<string | null> {
    const { store, workflows, executor, identity } = this.deps;
    // A redelivery costs one read, not a call to the packs registry.
    if (await store.triggerStart(t.tenantId, t.id, event.id)) return null;
    const correlationId = randomUUID();
    const token = await identity.tokenFor(t.tenantId);
    const resolved = await workflows.resolvePack(
      correlationId,
      t.tenantId,
      { workflowPackId: t.packId, workflowPackVersion: t.packVersion },
      t.workflowType,
      { token },
    );
    const { id, started } = await workflows.begin(t.tenantId, resolved, {
      workflowType: t.workflowType,
      payload,
      metadata: {
        trigger: {
          trigger_id: t.id,
          topic: event.topic,
          event_id: event.id,
          event_source: event.source,
          event_type: event.type,
          event_subject: event.subject,
          position: event.position,
        },
      },
      // The person who enabled the trigger asked for this work: the audit names them, and they
      // may not approve it themselves.
      requestedBy: t.createdBy,
      correlationId,
      triggerStart: { triggerId: t.id, eventId: event.id },
    });
    if (!started) return null;
    // Driven by this process now (with the service's identity); the poller would take it anyway.
    void executor.driveOwned(id, t.tenantId, undefined);
    return id;
  }
}

function triggerAudit(t: WorkflowTrigger, action: 'created' | 'deleted', caller: Caller) {
  return {
    tenantId: t.tenantId,
    eventType: 'workflow_trigger',
    eventData: {
      trigger_id: t.id,
      action,
      pack_id: t.packId,
      pack_version: t.packVersion,
      workflow_type: t.workflowType,
      topic: t.topic,
    },
    userId: caller.auth?.username ?? null,
    correlationId: caller.correlationId,
    idempotencyKey: `workflow_trigger:${t.id}:${action}`,
  };
}
