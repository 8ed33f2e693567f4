// The bus as services use it: by contract (platform/contracts/*.events.ts), not by topic string.
// `publish` only accepts the contract's payload type; `subscribe` parses what arrives against the
// contract's schema, and a payload that does not match is logged (topic, version, producer and
// the failing paths, never the values: they may carry personal data) and dropped, so handlers
// only ever see well-formed payloads. The bus is at most once and has no negative
// acknowledgement to give; a dropped payload is as lost as an undelivered one, which every
// consumer already tolerates (caches expire, pull-on-notify reads the store).
//
// Notices relayed from the notice outbox (platform/outbox/notice-relay.ts) arrive as CloudEvents
// envelopes: `subscribe` parses the envelope's `data` and hands the handler the envelope's
// attributes too, whose `id` a consumer deduplicates by (notice-dedupe.ts), since the outbox
// delivers at least once. Bare payloads (the ledger's notices) are still accepted.
import type { EventContract, PayloadOf } from '../contracts/event-contract';
import { parsePayload } from '../contracts/event-contract';
import type { Logger } from '../logging/logger';
import { isNoticeEnvelope, type NoticeEnvelope } from '../outbox/notice.envelope';
import { continueTrace } from '../telemetry/trace-context';
import type { EventBus, Unsubscribe } from './event-bus';

/** The CloudEvents attributes of a notice (its envelope without the data). */
export type NoticeMeta = Omit<NoticeEnvelope, 'data'>;

/** `meta` is absent for a bare payload (published directly, not through the notice outbox). */
export type ContractHandler<C extends EventContract> = (
  payload: PayloadOf<C>,
  meta?: NoticeMeta,
) => void | Promise<void>;

export interface ContractBus {
  /**
   * Hands a payload of the contract's type to the bus. Not checked at run time: the type checks
   * the producer, and consumers parse anyway.
   */
  publish<C extends EventContract>(contract: C, payload: PayloadOf<C>): Promise<void>;
  /** Resolves once the subscription is live; `handler` receives parsed payloads only. */
  subscribe<C extends EventContract>(contract: C, handler: ContractHandler<C>): Promise<Unsubscribe>;
}

/** The publishing half, for producers that never subscribe. */
export function contractPublisher(bus: Pick<EventBus, 'publish'>): Pick<ContractBus, 'publish'> {
  return { publish: (contract, payload) => bus.publish(contract.topic, payload) };
}

export function contractBus(bus: Pick<EventBus, 'publish' | 'subscribe'>, logger: Pick<Logger, 'warn'>): ContractBus {
  return {
    ...contractPublisher(bus),
    subscribe: (contract, handler) =>
      bus.subscribe(contract.topic, (message) => {
        let payload = message;
        let meta: NoticeMeta | undefined;
        if (isNoticeEnvelope(message)) {
          const { data, ...attributes } = message;
          payload = data;
          meta = attributes;
        }
        const parsed = parsePayload(contract, payload);
        if (!parsed.ok) {
          logger.warn(
            { topic: contract.topic, version: contract.version, producer: contract.producer, issues: parsed.issues },
            'malformed event dropped',
          );
          return;
        }
        if (!meta) return handler(parsed.value, meta);
        // The consumer's work joins the trace of the request that wrote the notice.
        return continueTrace(
          meta.traceparent,
          `consume ${contract.topic}`,
          { 'messaging.message.id': meta.id },
          async () => handler(parsed.value, meta),
        );
      }),
  };
}
