// The durable consumers behind workflow triggers: one platform group per triggered topic
// (`workflow.triggers.<topic>`), shared by every workflow process (SKIP LOCKED: each event is
// leased by one of them at a time), reading every tenant's stream of the topic. The handler
// (TriggerService.fire) acts only on the triggers of the event's own tenant. A topic is consumed
// from the moment a trigger on it exists: at start for the topics already triggered, at once when
// this process creates a trigger, and within WORKFLOW_TRIGGER_REFRESH_MS when another process did.
// A topic whose last trigger is deleted keeps its consumer until the process stops (its events
// are acked with nothing to do), so its group's cursor never falls behind.
import type { Database } from '../../platform/db/database';
import { consume, type DurableConsumer } from '../../platform/events/backbone/durable-consumer';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { TriggerService } from './trigger.service';
import type { WorkflowConfig } from './workflow.config';
import type { WorkflowStore } from './workflow.store';

/** The platform group consuming one topic for the workflow triggers. */
export const triggerGroup = (topic: string) => `workflow.triggers.${topic}`;

export interface TriggerConsumers {
  start(): Promise<void>;
  /** Consume `topic` (a trigger on it was just created). */
  ensure(topic: string): Promise<DurableConsumer>;
  /** The running consumer of a topic (tests drain it). */
  consumer(topic: string): Promise<DurableConsumer> | undefined;
  stop(): Promise<void>;
}

export function triggerConsumers(deps: {
  db: Pick<Database, 'sql'>;
  bus: Pick<EventBus, 'publish' | 'subscribe'>;
  logger: Logger;
  store: Pick<WorkflowStore, 'triggerTopicsAcrossTenants'>;
  triggers: Pick<TriggerService, 'fire'>;
  config: Pick<WorkflowConfig, 'triggerMaxDeliveries' | 'triggerBackoffMs' | 'triggerRefreshMs'>;
}): TriggerConsumers {
  const log = deps.logger.child({ task: 'workflow-triggers' });
  const consumers = new Map<string, Promise<DurableConsumer>>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function ensure(topic: string): Promise<DurableConsumer> {
    const running = consumers.get(topic);
    if (running) return running;
    const started = consume(deps.db, {
      subscription: triggerGroup(topic),
      topic,
      // Events from the group's creation on: a trigger starts no backlog (TriggerService.fire
      // also skips events older than the trigger).
      from: 'now',
      maxDeliveries: deps.config.triggerMaxDeliveries,
      backoffMs: deps.config.triggerBackoffMs,
      bus: deps.bus,
      logger: log,
      handler: async (event) => {
        const outcome = await deps.triggers.fire(event);
        if (outcome.started.length > 0)
          log.info({ topic, eventId: event.id, tenantId: event.tenantId, started: outcome.started }, 'triggered');
      },
    });
    consumers.set(topic, started);
    // A failed start is retried by the next ensure (refresh or trigger creation).
    started.catch((err: unknown) => {
      consumers.delete(topic);
      log.warn({ topic, err: (err as Error).message }, 'starting a trigger consumer failed');
    });
    return started;
  }

  async function refresh(): Promise<void> {
    for (const topic of await deps.store.triggerTopicsAcrossTenants()) await ensure(topic).catch(() => undefined);
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      refresh()
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'refreshing trigger topics failed'))
        .finally(schedule);
    }, deps.config.triggerRefreshMs);
    timer.unref();
  }

  return {
    async start() {
      await refresh();
      schedule();
    },
    ensure,
    consumer: (topic) => consumers.get(topic),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const all = [...consumers.values()];
      consumers.clear();
      for (const c of all) await (await c.catch(() => undefined))?.stop();
    },
  };
}
