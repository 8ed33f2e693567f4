// The audit events of retention and erasure, written through the outbox with the change. None
// names a subject by its id: holds and erasures carry the subject's reference (an HMAC under the
// vault's master key), so the ledger, which can never forget, holds no subject's identity.

export const RETENTION_POLICY_SET_EVENT = 'compliance.retention_policy_set';
export const RETENTION_POLICY_REMOVED_EVENT = 'compliance.retention_policy_removed';
export const LEGAL_HOLD_PLACED_EVENT = 'compliance.legal_hold_placed';
export const LEGAL_HOLD_RELEASED_EVENT = 'compliance.legal_hold_released';
export const SUBJECT_ERASED_EVENT = 'compliance.subject_erased';
