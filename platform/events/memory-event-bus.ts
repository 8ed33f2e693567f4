// In-process bus: enough for one process (the embedded PGlite setup, tests).
import type { EventBus } from './event-bus';
import { HandlerRegistry } from './event-bus';

export function createMemoryEventBus(onError: (err: unknown) => void = () => {}): EventBus {
  const registry = new HandlerRegistry();
  return {
    kind: 'memory',
    async publish(topic, payload) {
      // Delivered after the publisher's current work, as a remote bus would.
      const copy = JSON.parse(JSON.stringify(payload)) as unknown;
      setImmediate(() => registry.dispatch(topic, copy, onError));
    },
    async subscribe(topic, handler) {
      const remove = registry.add(topic, handler);
      return async () => remove();
    },
    async close() {},
  };
}
