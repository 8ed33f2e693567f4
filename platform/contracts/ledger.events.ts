// The ledger's topic: published by the notice relay from events already committed
// (subgraphs/ledger/ledger-notice.relay.ts), one notice per tenant, event type and relay pass,
// naming the pass's latest event of that type (issue 35; it was one per event). A notice only
// wakes the `ledgerEventAppended` subscriptions, which then read the chain after the last seq they
// delivered; it carries no event data, and counting notices does not count events.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { TenantId } from './contract.types';

export const LedgerEventAppendedSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    tenant_id: TenantId,
    /** The event's position in its tenant's chain. */
    seq: Type.Integer({ minimum: 1 }),
    event_type: Type.String(),
  },
  { $id: 'ledger.event_appended.v1' },
);
export type LedgerEventAppended = Static<typeof LedgerEventAppendedSchema>;

export const LEDGER_EVENT_APPENDED = eventContract({
  topic: 'ledger.event_appended',
  version: 1,
  schema: LedgerEventAppendedSchema,
  producer: 'ledger',
  consumers: ['ledger'],
  description:
    "Events were appended to a tenant's chain: the latest of one event type in a relay pass (id, seq and type only); wakes ledgerEventAppended subscriptions, which read the chain.",
});
