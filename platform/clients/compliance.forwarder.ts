// How validation and workflow honour PLATFORM_COMPLIANCE_URL (spec 03): after the transaction that
// wrote a compliance notice commits, the notice is also handed to the compliance service through
// its typed client, with the notice's own CloudEvents id as the event id. The notice itself stays
// in the outbox and is published on the backbone, which the compliance intake consumes durably:
// that is the at-least-once path. The call is the fast path, best effort: the intake takes each
// event id once per tenant, so whichever of the two arrives second changes nothing (no double
// count), and a call that fails or is skipped loses nothing.
import type { DelegatedIdentity } from '../auth/service-identity';
import { COMPLIANCE_RULE_EXECUTION, COMPLIANCE_WORKFLOW_EVENT } from '../contracts/compliance.events';
import { readUrl } from '../config/env';
import type { Logger } from '../logging/logger';
import type { NoticeEnvelope } from '../outbox/notice.envelope';
import type { PendingNotice } from '../outbox/notice.writer';
import type { Env } from '../service';
import { ComplianceClient } from './compliance.client';

/** The compliance topics a producer forwards (the intake's topics). */
const FORWARDED_TOPICS = new Set<string>([COMPLIANCE_RULE_EXECUTION.topic, COMPLIANCE_WORKFLOW_EVENT.topic]);

/** Calls in flight at most; beyond it a notice is left to the backbone (a burst never queues unbounded). */
const MAX_IN_FLIGHT = 64;

export interface ComplianceForwarder {
  /** Committed notices: the compliance ones among them are submitted (never throws, never waits). */
  forward(notices: readonly (PendingNotice | NoticeEnvelope)[]): void;
  /** Waits for the calls in flight (a service's stop). */
  drain(): Promise<void>;
}

const NONE: ComplianceForwarder = { forward: () => {}, drain: async () => {} };

/**
 * The forwarder of a producer: active only when PLATFORM_COMPLIANCE_URL is set (without it the
 * backbone is the only path, as before). `identity` is the producer's own, scoped per tenant.
 */
export function complianceForwarder(
  env: Env,
  identity: DelegatedIdentity,
  logger: Pick<Logger, 'warn' | 'debug'>,
  client?: Pick<ComplianceClient, 'submitEvent'>,
): ComplianceForwarder {
  const url = readUrl(env, 'PLATFORM_COMPLIANCE_URL', ['http:', 'https:']);
  if (!url && !client) return NONE;
  const compliance = client ?? new ComplianceClient(url!, identity);
  const inFlight = new Set<Promise<unknown>>();
  return {
    forward(notices) {
      for (const n of notices) {
        const envelope = 'envelope' in n ? n.envelope : n;
        if (!FORWARDED_TOPICS.has(envelope.type)) continue;
        if (inFlight.size >= MAX_IN_FLIGHT) {
          logger.debug({ event_id: envelope.id }, 'compliance: forwarding skipped (busy); the backbone delivers it');
          continue;
        }
        const call = compliance
          .submitEvent(
            { tenantId: envelope.tenantid },
            { id: envelope.id, topic: envelope.type, data: envelope.data as never },
          )
          .catch((err: unknown) =>
            logger.warn(
              { err: (err as Error).message, event_id: envelope.id, topic: envelope.type },
              'compliance: forwarding failed; the backbone delivers it',
            ),
          )
          .finally(() => inFlight.delete(call));
        inFlight.add(call);
      }
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
