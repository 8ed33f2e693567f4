// The rule-pack registry service's API as other services call it, in wire names: the request and
// response types of platform/clients/rulepack-registry.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export type RulePackStatus = 'draft' | 'review' | 'certified' | 'deprecated';

export interface RulePackVersionView {
  pack_id: string;
  version: string;
  status: RulePackStatus;
  /** The pack as submitted (rule-pack schema). */
  pack: Record<string, unknown>;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of `pack`. */
  sha256: string;
  owner_tenant: string;
  author: string;
  reviewers: string[];
  submitted_at: string;
  certified_at: string | null;
  /** Ed25519 over the canonical JSON bytes of `pack`, base64url; set once certified. */
  signature: string | null;
  /** Which published key signed it (`kid` in the key set). */
  key_id: string | null;
  deprecated_at: string | null;
  /** Set on deprecation: the pack version to use instead, e.g. {pack_id, version}. */
  replacement: { pack_id: string; version: string } | null;
}

/** The published signing keys, a JWK set of Ed25519 (`kty: OKP`, `crv: Ed25519`) public keys. */
export interface RulePackKeySet {
  keys: Array<{ kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; use: 'sig'; alg: 'EdDSA' }>;
}
