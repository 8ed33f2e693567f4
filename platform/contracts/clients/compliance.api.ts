// The compliance service's API as other services call it, in wire names: the request and
// response types of platform/clients/compliance.client.ts. What the serving routes
// (rest-compat/compliance) send and accept must stay assignable to these.

export interface ComplianceEventRequest {
  /** The event's id: the intake takes a repeat once (the producer's notice id is a good one). */
  id: string;
  /** A compliance topic of platform/contracts/compliance.events.ts. */
  topic: string;
  /** The topic's payload (its tenant_id names the tenant). */
  data: Record<string, unknown>;
}

export interface ComplianceControlRefJson {
  framework: string;
  control_id: string;
}

export interface ComplianceIngestResponse {
  /** False when the event id was taken before. */
  created: boolean;
  item_id: string | null;
  controls: ComplianceControlRefJson[];
}

export interface ComplianceEvidenceRevisionJson {
  revision: number;
  content: unknown;
  content_sha256: string;
  collected_at: string;
  expires_at: string;
  recorded_by: string | null;
  ledger_entry_id: string | null;
  ledger_chain_hash: string | null;
}

export interface ComplianceEvidenceJson {
  id: string;
  source: string;
  event_id: string | null;
  event_type: string | null;
  controls: ComplianceControlRefJson[];
  created_at: string;
  revisions: ComplianceEvidenceRevisionJson[];
}

export interface ComplianceEvidencePageJson {
  items: ComplianceEvidenceJson[];
  next_cursor: string | null;
}

export interface ComplianceEvidenceQuery {
  framework?: string;
  control_id?: string;
  /** RFC 3339. */
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

/** One record type's retention rule for the caller's tenant (GET /api/compliance/retention/policies). */
export interface ComplianceRetentionRuleJson {
  /** A platform/retention record type (`rag_document`, `ocr_job`, ...). */
  record_type: string;
  legal_minimum_days: number;
  /** Days a record is kept after its creation; null: the tenant has no policy (kept). */
  retain_days: number | null;
  updated_by: string | null;
  updated_at: string | null;
}

export interface ComplianceRetentionPoliciesJson {
  policies: ComplianceRetentionRuleJson[];
}
