// The rule-pack registry's topics, published after a decision commits (at most once to each live
// subscriber). The validation service drops its cached copy of a deprecated pack; the packs
// registry catalogues certified packs and marks deprecated ones.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { PackId, PackRef, SemVer, TenantId } from './contract.types';

/** The payload of both topics (v1). */
export const RulePackNoticeSchema = Type.Object(
  {
    pack_id: PackId,
    version: SemVer,
    owner_tenant: TenantId,
    /** For a deprecation: the certified version to use instead, if the decision named one. */
    replacement: Type.Optional(Type.Union([PackRef, Type.Null()])),
  },
  { $id: 'rulepack.notice.v1', description: 'A rule-pack version whose lifecycle changed' },
);
export type RulePackNotice = Static<typeof RulePackNoticeSchema>;

export const RULEPACK_CERTIFIED = eventContract({
  topic: 'rulepack.certified',
  version: 1,
  schema: RulePackNoticeSchema,
  producer: 'rulepack-registry',
  consumers: ['packs-registry'],
  description: 'A rule-pack version was certified and signed: it may now run and be catalogued.',
});

export const RULEPACK_DEPRECATED = eventContract({
  topic: 'rulepack.deprecated',
  version: 1,
  schema: RulePackNoticeSchema,
  producer: 'rulepack-registry',
  consumers: ['validation', 'packs-registry'],
  description: 'A certified rule-pack version was deprecated (with its replacement, if any): caches drop it.',
});

export type RulePackNoticeContract = typeof RULEPACK_CERTIFIED | typeof RULEPACK_DEPRECATED;

/** The notice of a registry version (its domain names mapped to the contract's). */
export function rulePackNotice(v: {
  packId: string;
  version: string;
  ownerTenant: string;
  replacement: { packId: string; version: string } | null;
}): RulePackNotice {
  return {
    pack_id: v.packId,
    version: v.version,
    owner_tenant: v.ownerTenant,
    replacement: v.replacement ? { pack_id: v.replacement.packId, version: v.replacement.version } : null,
  };
}
