// The packs registry's domain types (spec 01, "Pack catalog"), shared by the service, the store,
// the dependency resolver and both API doors. Wire names (snake_case) are used where a value is
// also part of a stored artifact or the bus payload, so they never need translating.
import type { Caller } from '../../platform/auth/caller';

export type PackKind = 'workflow' | 'rule' | 'dataflow';
export const PACK_KINDS: readonly PackKind[] = ['workflow', 'rule', 'dataflow'];

/** Spec 01's pack status table for the packs registry: draft → certified → deprecated. */
export type PackStatus = 'draft' | 'certified' | 'deprecated';
export const PACK_STATUSES: readonly PackStatus[] = ['draft', 'certified', 'deprecated'];

/** Certified and deprecated versions are published to every tenant; drafts only to their owner. */
export const PUBLISHED_STATUSES: readonly PackStatus[] = ['certified', 'deprecated'];

export type ArtifactFormat = 'json' | 'yaml';

export interface PackRef {
  pack_id: string;
  version: string;
}

export interface SchemaRef {
  name: string;
  version: string;
}

export interface PackDependencies {
  rule_packs: PackRef[];
  schemas: SchemaRef[];
  workflow_packs: PackRef[];
}

/** Where the artifact lives: here for workflow packs, the rule-pack registry for rule packs. */
export interface ArtifactPointer {
  service: 'packs-registry' | 'rulepack-registry';
  pack_id: string;
  version: string;
}

/** One catalog entry: a pack version. */
export interface PackEntry {
  packId: string;
  version: string;
  kind: PackKind;
  status: PackStatus;
  ownerTenant: string;
  author: string | null;
  reviewers: string[];
  submittedAt: Date;
  certifiedAt: Date | null;
  deprecatedAt: Date | null;
  replacement: PackRef | null;
  artifactFormat: ArtifactFormat;
  /** The artifact exactly as submitted (workflow packs). */
  artifactSource: string | null;
  /** The parsed artifact (workflow packs). */
  artifactContent: Record<string, unknown> | null;
  /** SHA-256 hex of the RFC 8785 canonical JSON of the parsed artifact (workflow packs). */
  artifactSha256: string | null;
  artifactPointer: ArtifactPointer;
  dependencies: PackDependencies;
}

/**
 * Whose view a read returns: one tenant's (its own drafts plus every published version) or, for
 * platform operators, everything.
 */
export type Viewer = { tenantId: string } | 'all';

export interface PackFilter {
  kind?: PackKind;
  status?: PackStatus;
}

/**
 * The caller plus its bearer token: dependency checks ask the rule-pack and schema registries
 * with the caller's own token, so each applies its own tenant rule to what this registry sees.
 */
export interface PacksCaller extends Caller {
  token?: string;
}
