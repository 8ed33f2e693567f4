// The rule-pack registry's records and the store interfaces its services depend on (so unit tests
// can hand them strict fakes and no database).
import type { NoticeWriter } from '../../platform/outbox/notice.writer';
import type { OutboxWriter } from '../../platform/outbox/outbox.writer';

export const RULEPACK_STATUSES = ['draft', 'review', 'certified', 'deprecated'] as const;
export type RulePackStatus = (typeof RULEPACK_STATUSES)[number];

/** Published to every tenant; drafts and reviews are their owner tenant's only. */
export const PUBLISHED_STATUSES: readonly RulePackStatus[] = ['certified', 'deprecated'];

/**
 * Whose unpublished versions a read may return: one tenant's, or every tenant's (platform
 * operators and service accounts, decided by the service layer only).
 */
export const ALL_TENANTS = Symbol('all tenants');
export type ViewerScope = string | typeof ALL_TENANTS;

export interface PackRef {
  packId: string;
  version: string;
}

export interface RulePackVersionRecord {
  packId: string;
  version: string;
  status: RulePackStatus;
  pack: Record<string, unknown>;
  sha256: string;
  ownerTenant: string;
  author: string;
  reviewers: string[];
  submittedAt: Date;
  certifiedAt: Date | null;
  signature: string | null;
  keyId: string | null;
  deprecatedAt: Date | null;
  replacement: PackRef | null;
}

export interface NewRulePackVersion {
  packId: string;
  version: string;
  pack: Record<string, unknown>;
  sha256: string;
  ownerTenant: string;
  author: string;
}

/** A move between states, applied only if the version is still in `from` (compare and set). */
export interface Transition {
  from: RulePackStatus;
  to: RulePackStatus;
  /** Added to reviewers (once). */
  reviewer?: string;
  certifiedAt?: Date;
  signature?: string;
  keyId?: string;
  deprecatedAt?: Date;
  replacement?: PackRef | null;
}

export type DecisionKind = 'submitted' | 'review_requested' | 'certified' | 'rejected' | 'deprecated';

export interface DecisionRecord {
  decision: DecisionKind;
  actor: string;
  fromState: RulePackStatus | null;
  toState: RulePackStatus;
  notes: string | null;
  createdAt: Date;
}

export interface ListQuery {
  viewer: ViewerScope;
  status?: RulePackStatus;
  /** Keyset: versions after this (pack id, version) in (pack_id, version) order. */
  after?: PackRef;
  limit: number;
}

export interface RulePackStore {
  /** The version if it exists and `viewer` may see it (published, or owned by the viewer). */
  findVersion(viewer: ViewerScope, ref: PackRef): Promise<RulePackVersionRecord | null>;
  /** The versions among `refs` that exist and `viewer` may see (any order): one statement. */
  findVersions(viewer: ViewerScope, refs: readonly PackRef[]): Promise<RulePackVersionRecord[]>;
  /** Every version of a pack `viewer` may see. */
  listVersions(viewer: ViewerScope, packId: string): Promise<RulePackVersionRecord[]>;
  list(query: ListQuery): Promise<RulePackVersionRecord[]>;
  /** The tenant that owns a pack id, or null when nobody has submitted it. */
  ownerOf(packId: string): Promise<string | null>;
  /** Claims the pack id for a tenant; returns the owner afterwards (another tenant's, if it won). */
  claimPack(packId: string, ownerTenant: string): Promise<string>;
  /** Inserts a version; returns false when (pack id, version) already exists. */
  insertVersion(version: NewRulePackVersion): Promise<boolean>;
  /** Applies the transition if the version is still in `from`; returns the updated record or null. */
  transition(ref: PackRef, t: Transition): Promise<RulePackVersionRecord | null>;
  recordDecision(ref: PackRef, decision: Omit<DecisionRecord, 'createdAt'>): Promise<void>;
  decisions(ref: PackRef): Promise<DecisionRecord[]>;
}

export interface RulePackStores {
  packs: RulePackStore;
  outbox: OutboxWriter;
  /** rulepack.certified / rulepack.deprecated, written with the decision (the notice outbox). */
  notices: NoticeWriter;
}

export interface RulePackUnitOfWork extends RulePackStores {
  transaction<T>(work: (stores: RulePackStores) => Promise<T>): Promise<T>;
}

export interface SigningKeyRecord {
  kid: string;
  publicKeyX: string;
  /** null when the key lives in RULEPACK_SIGNING_KEY, not in the database. */
  privateKeyPem: string | null;
  active: boolean;
  createdAt: Date;
  retiredAt: Date | null;
}

export interface SigningKeyStore {
  active(): Promise<SigningKeyRecord | null>;
  all(): Promise<SigningKeyRecord[]>;
  /** Inserts `key` as the active key unless an active key (or this kid) exists; never throws on that race. */
  insertActiveIfNone(key: { kid: string; publicKeyX: string; privateKeyPem: string | null }): Promise<void>;
  /** Makes `key` the active key, retiring any other; idempotent. */
  activate(key: { kid: string; publicKeyX: string; privateKeyPem: string | null }): Promise<void>;
  /** Retires the active key if it is `kid`. */
  retire(kid: string): Promise<void>;
}
