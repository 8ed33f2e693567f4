// The compliance service's records and input limits, shared by the domain, its stores and both
// doors. Frameworks are per tenant: a tenant imports the catalogs, profiles and mappings it
// answers to, and its evidence is recorded against their controls.

/** What an imported framework was built from. */
export type FrameworkKind = 'catalog' | 'profile' | 'mapping';

/** A framework's key within its tenant: what controls, evidence and (later) reports name. */
export const FRAMEWORK_KEY = /^[a-z0-9][a-z0-9._-]{0,99}$/;

export interface Framework {
  tenantId: string;
  framework: string;
  kind: FrameworkKind;
  oscalUuid: string;
  title: string;
  version: string;
  /** The framework a profile selects from or a mapping points into; null for a catalog. */
  basedOn: string | null;
  /** SHA-256 hex of the RFC 8785 canonical JSON of the imported document. */
  sha256: string;
  controlCount: number;
  importedBy: string | null;
  importedAt: Date;
}

/** A control (or SOC 2 criterion, or control enhancement) of a framework. */
export interface Control {
  framework: string;
  controlId: string;
  title: string;
  /** The statement's prose (parts named `statement`, joined), parameters left as inserted. */
  statement: string;
  parentId: string | null;
  /** The controls of other frameworks this one is satisfied by (a profile's catalog control, a SOC 2 criterion's 800-53 ids). */
  mapsTo: ControlRef[];
}

export interface ControlRef {
  framework: string;
  controlId: string;
}

/** A framework and its controls, as one import writes them (in one transaction). */
export interface ParsedFramework {
  framework: string;
  kind: FrameworkKind;
  oscalUuid: string;
  title: string;
  version: string;
  basedOn: string | null;
  sha256: string;
  document: unknown;
  controls: Control[];
}

/** Fresh: evidence beyond the expiring window; expiring: the newest expires within it; stale: none in force. */
export type Freshness = 'fresh' | 'expiring' | 'stale';

export interface ControlFreshness {
  framework: string;
  controlId: string;
  status: Freshness;
  /** When the evidence in force that lasts longest expires (null when stale). */
  expiresAt: Date | null;
  /** The newest evidence's collection time, in force or not (null when there is none). */
  lastCollectedAt: Date | null;
  evidenceCount: number;
}

/** One revision of an evidence item: revisions are appended, never changed. */
export interface EvidenceRevision {
  itemId: string;
  revision: number;
  content: unknown;
  contentSha256: string;
  collectedAt: Date;
  expiresAt: Date;
  recordedBy: string | null;
  /** The ledger entry that recorded this revision's hash; null until the ledger has answered. */
  ledgerEntryId: string | null;
  ledgerChainHash: string | null;
}

export interface EvidenceItem {
  tenantId: string;
  id: string;
  /** Where it came from: `event:<topic>` for intake, `manual` or the caller's label for uploads. */
  source: string;
  /** The intake event's id (at most one item per event), null for uploads. */
  eventId: string | null;
  eventType: string | null;
  controls: ControlRef[];
  createdAt: Date;
  /** The newest revision first. */
  revisions: EvidenceRevision[];
}

/** The filter of the evidence store's reads: by control, by framework, by period. */
export interface EvidenceQuery {
  framework?: string;
  controlId?: string;
  /** Items with a revision collected at or after this instant. */
  from?: Date;
  /** ... and before this one. */
  to?: Date;
  limit: number;
  /** Page after this item (created_at, id), from a cursor. */
  after?: { createdAt: Date; id: string };
}

export type MappingPackStatus = 'draft' | 'certified';

export interface MappingRule {
  event_type: string;
  rule_pack_ids?: string[];
  controls: { framework: string; control_id: string }[];
  evidence_ttl_days?: number;
}

export interface MappingPackContent {
  metadata: { pack_id: string; version: string; name: string; description?: string };
  mappings: MappingRule[];
}

export interface MappingPack {
  tenantId: string;
  packId: string;
  version: string;
  status: MappingPackStatus;
  pack: MappingPackContent;
  sha256: string;
  author: string;
  submittedAt: Date;
  certifiedBy: string | null;
  certifiedAt: Date | null;
  signature: string | null;
  keyId: string | null;
}

/** A compliance event as the intake takes it: from the bus, the REST door or (later) the durable consumer. */
export interface ComplianceEventInput {
  /** Unique per tenant: the CloudEvents id of the notice (a redelivery carries the same one). */
  id: string;
  tenantId: string;
  topic: string;
  /** The event types mapping packs match (the topic, its ledger event type, a workflow transition). */
  types: string[];
  /** The rule pack a validation run used (or the dataflow or scanner pack), for rules that name packs. */
  rulePackId: string | null;
  /** Control ids the event names itself (a scanner finding's): evidence for them in every framework that has them. */
  controlIds?: string[];
  occurredAt: Date;
  data: Record<string, unknown>;
}

export interface IngestResult {
  /** False when the event id was taken before (a redelivery): nothing new was written. */
  created: boolean;
  /** The evidence item the event became, or null when no certified mapping names its type. */
  itemId: string | null;
  controls: ControlRef[];
}

export const LIMITS = {
  /** Largest OSCAL document accepted (serialised), before any parsing of its structure. */
  documentBytes: 4 * 1024 * 1024,
  /** Deepest JSON nesting of a document (a catalog's groups and controls nest; 800-53 needs about 12). */
  documentDepth: 40,
  /** Most controls (enhancements included) one framework may hold. */
  controls: 5000,
  /** Most groups and controls nested in one another. */
  controlNesting: 8,
  /** Largest evidence content (serialised). */
  evidenceBytes: 256 * 1024,
  /** Most controls one evidence item or mapping rule names. */
  controlsPerItem: 100,
  /** Most rules in one mapping pack. */
  mappingRules: 500,
  pageSize: 100,
  maxPageSize: 500,
} as const;
