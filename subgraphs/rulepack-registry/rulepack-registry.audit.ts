// The registry's audit event types (docs/rulepack-registry.md lists them), written to the outbox
// in the same transaction as the change they record, in the owner tenant's ledger.
export const RULEPACK_EVENTS = {
  submitted: 'rulepack_submitted',
  reviewRequested: 'rulepack_review_requested',
  certified: 'rulepack_certified',
  rejected: 'rulepack_rejected',
  deprecated: 'rulepack_deprecated',
} as const;
