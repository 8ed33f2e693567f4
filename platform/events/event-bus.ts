// The platform's event bus: topics such as `ledger.event_appended` carrying small JSON payloads.
// Implementations: in-process (tests, one process on PGlite), PostgreSQL LISTEN/NOTIFY (several
// processes on one PostgreSQL, no extra server) and NATS JetStream (NATS_URL). All deliver at
// most once to each live subscriber; durable delivery is the outbox's job, not the bus's.

export type EventHandler = (payload: unknown) => void | Promise<void>;
export type Unsubscribe = () => Promise<void>;

export interface EventBus {
  readonly kind: 'memory' | 'postgres' | 'nats';
  /** Resolves once the event is handed to the transport. */
  publish(topic: string, payload: unknown): Promise<void>;
  /** Resolves once the subscription is live: events published afterwards reach `handler`. */
  subscribe(topic: string, handler: EventHandler): Promise<Unsubscribe>;
  close(): Promise<void>;
}

/** Calls every handler of a topic; a failing handler never affects the others or the publisher. */
export class HandlerRegistry {
  private readonly handlers = new Map<string, Set<EventHandler>>();

  add(topic: string, handler: EventHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    // Wrapped so the same function subscribed twice is two subscriptions.
    const entry: EventHandler = (p) => handler(p);
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0) this.handlers.delete(topic);
    };
  }

  has(topic: string): boolean {
    return this.handlers.has(topic);
  }

  dispatch(topic: string, payload: unknown, onError: (err: unknown) => void): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        void Promise.resolve(handler(payload)).catch(onError);
      } catch (err) {
        onError(err);
      }
    }
  }
}
