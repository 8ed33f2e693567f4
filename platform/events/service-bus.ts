// The bus a service uses: one given to it (a test's), else the process's (the launcher creates one
// per process so that services sharing a process hear each other, including on PGlite where the
// bus is in memory), else one of its own from configuration. Only a bus the service created is
// closed by it.
import type { ServiceDeps } from '../service';
import { createEventBus } from './create-event-bus';
import type { EventBus } from './event-bus';

export interface ServiceBus {
  bus: EventBus;
  /** Closes the bus if this service created it. */
  release(): Promise<void>;
}

export async function serviceBus(deps: ServiceDeps, given?: EventBus): Promise<ServiceBus> {
  const shared = given ?? deps.bus;
  if (shared) return { bus: shared, release: async () => {} };
  const own = await processBus(deps);
  return { bus: own, release: () => own.close() };
}

/** A bus from configuration: NATS, PostgreSQL NOTIFY, or in memory. */
export function processBus(deps: Pick<ServiceDeps, 'config' | 'db' | 'logger'>): Promise<EventBus> {
  return createEventBus({
    natsUrl: deps.config.natsUrl,
    namespace: deps.config.namespace,
    stream: deps.config.stream,
    postgresUrl: deps.db.kind === 'postgres' ? deps.config.database.url : undefined,
    onError: (err) => deps.logger.warn({ err }, 'event bus error'),
  });
}
