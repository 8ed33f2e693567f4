// The audit events the config service writes (through the outbox, to the tenant's ledger; the
// operator layers' events go to the acting operator's tenant). Names, ids, versions and digests
// only: never a bundle's values (they may hold secret references).
export const CONFIG_AUDIT = {
  bundlePublished: 'config_bundle_published',
  promotionRequested: 'config_promotion_requested',
  promoted: 'config_promoted',
  promotionRejected: 'config_promotion_rejected',
  rolledBack: 'config_rolled_back',
} as const;
