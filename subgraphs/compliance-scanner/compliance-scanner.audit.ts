// The audit events the scanner writes (outbox → ledger, in the tenant acted in).
export const SCANNER_PACK_SUBMITTED_EVENT = 'scanner_pack_submitted';
export const SCANNER_PACK_CERTIFIED_EVENT = 'scanner_pack_certified';
export const SCANNER_TARGET_CREATED_EVENT = 'scanner_target_created';
export const SCANNER_SCAN_COMPLETED_EVENT = 'scanner_scan_completed';
export const SCANNER_SUPPRESSION_REQUESTED_EVENT = 'scanner_suppression_requested';
export const SCANNER_SUPPRESSION_DECIDED_EVENT = 'scanner_suppression_decided';
export const SCANNER_SUPPRESSION_EXPIRED_EVENT = 'scanner_suppression_expired';
export const SCANNER_SCHEDULE_CREATED_EVENT = 'scanner_schedule_created';
export const SCANNER_SCHEDULE_DELETED_EVENT = 'scanner_schedule_deleted';
