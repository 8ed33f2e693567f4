// The schema registry's records, as the domain sees them (the store maps rows to these).
import type { CompatibilityMode } from './schema-compatibility';

export type { CompatibilityMode };
export type SchemaKind = 'rule-pack' | 'workflow-pack' | 'data';
export const SCHEMA_KINDS: readonly SchemaKind[] = ['rule-pack', 'workflow-pack', 'data'];

/** Owner of the built-in schemas (platform/contracts) that every tenant reads. */
export const PLATFORM_OWNER = 'platform';

/** A named schema of one kind: its owner, its compatibility mode and its latest version. */
export interface SchemaSubject {
  owner: string;
  name: string;
  kind: SchemaKind;
  compatibility: CompatibilityMode;
  latestVersion: string;
  versionCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface SchemaVersionRecord {
  owner: string;
  name: string;
  version: string;
  /** Registration order within the subject (1, 2, ...), which is also semver order. */
  seq: number;
  definition: Record<string, unknown>;
  fingerprint: string;
  createdAt: Date;
  createdBy: string | null;
}

/** One version together with its subject (kind, owner, compatibility). */
export interface SchemaVersionView {
  subject: SchemaSubject;
  version: SchemaVersionRecord;
}

export const AUDIT_EVENTS = {
  registered: 'schema_registered',
  compatibilityChanged: 'schema_compatibility_changed',
} as const;
