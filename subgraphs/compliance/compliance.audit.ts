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
