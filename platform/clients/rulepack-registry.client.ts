// Typed client for the rule-pack registry (8091). Wire contract: docs/rulepack-registry.md.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';

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

export class RulePackRegistryClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /**
   * A pack version; without `version`, the newest certified one. Drafts and packs under review
   * are visible to their owner tenant only; certified and deprecated ones to every tenant.
   * Unknown: ServiceCallError status 404.
   */
  get(context: ServiceCallContext, packId: string, version?: string): Promise<RulePackVersionView> {
    const id = encodeURIComponent(packId);
    const path = version === undefined ? `rulepacks/${id}` : `rulepacks/${id}/versions/${encodeURIComponent(version)}`;
    return serviceRequest(this.endpoint, path, context);
  }

  /** Public, no token needed. */
  signingKeys(): Promise<RulePackKeySet> {
    return serviceRequest(this.endpoint, '.well-known/rulepack-keys.json', {});
  }
}
