// The audit events the compliance service writes through the outbox (committed with the change).
// Evidence itself is not audited here: each revision is appended to the ledger directly as
// EVIDENCE_LEDGER_EVENT, because its record must carry the ledger entry it got.

/** An OSCAL catalog or profile, or a framework mapping, was imported. */
export const FRAMEWORK_IMPORTED_EVENT = 'compliance.framework_imported';
/** A mapping pack draft was submitted. */
export const MAPPING_PACK_SUBMITTED_EVENT = 'compliance.mapping_pack_submitted';
/** A mapping pack was certified (and signed) by a second person. */
export const MAPPING_PACK_CERTIFIED_EVENT = 'compliance.mapping_pack_certified';
/** The ledger event type of an evidence revision: its content hash, controls and source. */
export const EVIDENCE_LEDGER_EVENT = 'compliance_evidence';

// Retention and erasure. None names a subject by its id: holds and erasures carry the subject's
// reference (an HMAC under the vault's master key), so the ledger, which can never forget, holds
// no subject's identity (docs/compliance.md, "Erasure").
export const RETENTION_POLICY_SET_EVENT = 'compliance.retention_policy_set';
export const RETENTION_POLICY_REMOVED_EVENT = 'compliance.retention_policy_removed';
export const LEGAL_HOLD_PLACED_EVENT = 'compliance.legal_hold_placed';
export const LEGAL_HOLD_RELEASED_EVENT = 'compliance.legal_hold_released';
export const SUBJECT_ERASED_EVENT = 'compliance.subject_erased';
