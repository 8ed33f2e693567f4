// Consumers' half of at-least-once delivery: the notice outbox may publish a notice twice (a relay
// killed after publishing, before its mark committed), so a consumer whose effect is not
// idempotent wraps its handler here and acts once per envelope id. The memory is bounded (the
// most recent `capacity` ids): a duplicate comes from a relay retry within seconds, not days.
import type { EventContract } from '../contracts/event-contract';
import type { ContractHandler } from './contract-bus';

export interface DedupeOptions {
  /** How many recent ids are remembered (default 10,000). */
  capacity?: number;
  /** Told of each duplicate dropped (metrics, tests). */
  onDuplicate?: (id: string) => void;
}

/** Recently seen ids, oldest forgotten first. */
export class SeenIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  /** Whether an id was offered (and is still remembered). */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** True the first time an id is offered (and remembers it), false afterwards. */
  first(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}

/** The handler, called once per notice id; bare payloads (no envelope) always pass. */
export function dedupeNotices<C extends EventContract>(
  handler: ContractHandler<C>,
  options: DedupeOptions = {},
): ContractHandler<C> {
  const seen = new SeenIds(options.capacity);
  return (payload, meta) => {
    if (meta && !seen.first(meta.id)) {
      options.onDuplicate?.(meta.id);
      return;
    }
    return handler(payload, meta);
  };
}
