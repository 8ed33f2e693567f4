// Typed client for the config service (8086): a tenant's effective configuration. Wire contract:
// docs/config.md. Services that read configuration at run time use CachedConfig
// (config-cache.ts) over it, which keeps a last good copy and refreshes on `config.changed`.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type { EffectiveConfigQuery, EffectiveConfigView } from '../contracts/clients/config.api';
export type { EffectiveConfigQuery, EffectiveConfigView };

export class ConfigClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** 403 another tenant (unless a service or operator), 422 a bad query; a ServiceCallError says whether a retry can help. */
  effective(
    context: ServiceCallContext,
    tenantId: string,
    query: EffectiveConfigQuery = {},
  ): Promise<EffectiveConfigView> {
    return serviceRequest(this.endpoint, `api/config/${encodeURIComponent(tenantId)}/effective`, context, {
      query: {
        suite: query.suite,
        module: query.module,
        namespace: query.namespace,
        user: query.user,
        as_of: query.as_of,
        resolve_secrets: query.resolve_secrets ? 'true' : undefined,
      },
      timeoutMs: 5_000,
    });
  }
}
