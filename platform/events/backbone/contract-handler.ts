// A durable consumer's handler by contract (platform/contracts/*.events.ts): the stored event's
// data is parsed against the contract's schema before the handler sees it. A payload that does
// not match throws (its topic, version and failing paths, never the values, which may carry
// personal data), so after the group's last delivery it rests in the dead-letter queue for an
// operator to look at, instead of vanishing as a malformed bus message does.
import { parsePayload, type EventContract, type PayloadOf } from '../../contracts/event-contract';
import type { EventRecord } from './backbone.types';
import type { Delivery, DurableHandler } from './durable-consumer';

export function contractHandler<C extends EventContract>(
  contract: C,
  handle: (payload: PayloadOf<C>, event: EventRecord, delivery: Delivery) => Promise<void> | void,
): DurableHandler {
  return (event, delivery) => {
    const parsed = parsePayload(contract, event.data);
    if (!parsed.ok) {
      throw new Error(
        `malformed ${contract.topic} v${contract.version} payload: ${parsed.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      );
    }
    return handle(parsed.value, event, delivery);
  };
}
