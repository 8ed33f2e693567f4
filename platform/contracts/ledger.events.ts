// The ledger's topic: a notice per appended event, published by the notice relay from events
// already committed (subgraphs/ledger/ledger-notice.relay.ts). A notice only wakes the
// `ledgerEventAppended` subscriptions, which then read the chain; it carries no event data.
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
    "An event was appended to a tenant's chain (id, seq and type only): wakes ledgerEventAppended subscriptions.",
});
