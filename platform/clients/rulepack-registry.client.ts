// Typed client for the rule-pack registry (8091). Wire contract: docs/rulepack-registry.md.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type { RulePackStatus, RulePackVersionView, RulePackKeySet } from '../contracts/clients/rulepack-registry.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { RulePackStatus, RulePackVersionView, RulePackKeySet };

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
