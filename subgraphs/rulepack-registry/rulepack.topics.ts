// Bus topics the registry publishes after a change commits (platform/events; at most once to each
// live subscriber: the validation service drops its cached copy of a pack on either).
import type { PackRef } from './rulepack-registry.types';

export const RULEPACK_TOPICS = {
  certified: 'rulepack.certified',
  deprecated: 'rulepack.deprecated',
} as const;

/** The payload of both topics (the common contract). */
export interface RulePackNotice {
  pack_id: string;
  version: string;
  owner_tenant: string;
  replacement?: { pack_id: string; version: string } | null;
}

export function noticeOf(v: { packId: string; version: string; ownerTenant: string; replacement: PackRef | null }): RulePackNotice {
  return {
    pack_id: v.packId,
    version: v.version,
    owner_tenant: v.ownerTenant,
    replacement: v.replacement ? { pack_id: v.replacement.packId, version: v.replacement.version } : null,
  };
}
