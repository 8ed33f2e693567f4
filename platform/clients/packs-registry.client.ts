// Typed client for the packs registry (8089), for the workflow service: fetch the workflow pack a
// run executes, by exact version or as the newest certified one. Wire contract:
// docs/packs-registry.md (the registry's own route schemas in rest-compat/packs-registry).
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  PackKind,
  PackStatus,
  PackRefView,
  PackDependenciesView,
  PackVersionView,
  DependencyGraphView,
} from '../contracts/clients/packs-registry.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { PackKind, PackStatus, PackRefView, PackDependenciesView, PackVersionView, DependencyGraphView };

export class PacksRegistryClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /**
   * A pack version; without `version`, the newest certified one. Drafts are visible to their
   * owner tenant only; certified and deprecated versions to every tenant. Unknown (or another
   * tenant's draft): ServiceCallError status 404.
   */
  get(context: ServiceCallContext, packId: string, version?: string): Promise<PackVersionView> {
    const id = encodeURIComponent(packId);
    const path = version === undefined ? `packs/${id}` : `packs/${id}/versions/${encodeURIComponent(version)}`;
    return serviceRequest(this.endpoint, path, context);
  }

  /** Catalog entries visible to the caller (without their artifacts), by pack id and version; one page. */
  list(
    context: ServiceCallContext,
    filter: { kind?: PackKind; status?: PackStatus; limit?: number },
  ): Promise<{ packs: PackVersionView[]; next_cursor: string | null }> {
    return serviceRequest(this.endpoint, 'packs', context, {
      query: { kind: filter.kind, status: filter.status, limit: filter.limit },
    });
  }

  /** The newest certified version (ServiceCallError 404 when there is none). */
  latestCertified(context: ServiceCallContext, packId: string): Promise<PackVersionView> {
    return this.get(context, packId);
  }

  /** The resolved dependency graph: 422 for missing dependencies or cycles, 409 for deprecated ones. */
  dependencies(context: ServiceCallContext, packId: string, version: string): Promise<DependencyGraphView> {
    return serviceRequest(
      this.endpoint,
      `packs/${encodeURIComponent(packId)}/versions/${encodeURIComponent(version)}/dependencies`,
      context,
    );
  }
}
