// Records of the config service and the limits its doors share (REST schemas, GraphQL, domain).
import type { Caller } from '../../platform/auth/caller';
import { InputError } from '../../platform/errors/domain-errors';

export const LAYERS = ['platform', 'suite', 'module', 'tenant'] as const;
export type Layer = (typeof LAYERS)[number];
export type HashBy = 'tenant' | 'user';

/** Names of namespaces, suites and modules: short, path- and subject-safe. */
export const NAME_PATTERN = /^[a-z][a-z0-9_.-]{0,99}$/;
/** A bundle's canonical JSON may weigh at most this (the HTTP body limit is set above it). */
export const MAX_BUNDLE_BYTES = 256 * 1024;
/** And nest at most this deep (objects and arrays). */
export const MAX_BUNDLE_DEPTH = 32;

/** Lists (bundles, rollouts) answer at most this many. */
export const MAX_LIST = 200;

/** A list's limit: 1 to MAX_LIST, a 422 naming `limit` otherwise. */
export function clampLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST)
    throw InputError.of(['query', 'limit'], `must be an integer from 1 to ${MAX_LIST}`, 'value_error.number');
  return limit;
}

export interface Target {
  layer: Layer;
  /** '' for platform; the suite, module or tenant id otherwise. */
  scope: string;
  namespace: string;
}

export interface Bundle extends Target {
  id: string;
  tenantId: string | null;
  version: number;
  content: Record<string, unknown>;
  sha256: string;
  schemaVersion: string | null;
  author: string;
  createdAt: Date;
}

export interface Change extends Target {
  seq: number;
  tenantId: string | null;
  bundleId: string;
  previousBundleId: string | null;
  percentage: number;
  hashBy: HashBy;
  kind: 'promote' | 'rollback';
  rolloutId: string | null;
  actor: string;
  approvedBy: string | null;
  signature: string;
  keyId: string;
  at: Date;
}

/** A change as a tenant's subscriber sees it: with its bundle's version and hash. */
export interface ChangeNotice extends Change {
  version: number;
  sha256: string;
}

export type RolloutStatus = 'pending_approval' | 'scheduled' | 'applied' | 'rejected' | 'failed';

export interface Rollout {
  id: string;
  tenantId: string | null;
  bundleId: string;
  percentage: number;
  hashBy: HashBy;
  status: RolloutStatus;
  requestedBy: string;
  approvedBy: string | null;
  workflowId: string | null;
  approvalTaskId: string | null;
  scheduledAt: Date | null;
  changeSeq: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Who set one key of the effective configuration. */
export interface Provenance {
  /** JSON pointer into the effective configuration: /<namespace>/<key>... */
  pointer: string;
  layer: Layer;
  bundleId: string;
  version: number;
  /** The config change log's position (config_changes.seq) that put the bundle in force. */
  seq: number;
}

export interface Effective {
  tenantId: string;
  /** { <namespace>: merged content } */
  config: Record<string, Record<string, unknown>>;
  provenance: Provenance[];
  /** The change-log position the answer reflects (the highest seq considered). */
  seq: number;
}

/** The caller with its bearer token (forwarded to the schema registry and workflow). */
export interface ConfigCaller extends Caller {
  token?: string;
}
