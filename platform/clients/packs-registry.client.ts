// Typed client for the packs registry (8089), for the workflow service: fetch the workflow pack a
// run executes, by exact version or as the newest certified one. Wire contract:
// docs/packs-registry.md (the registry's own route schemas in rest-compat/packs-registry).
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';

export type PackKind = 'workflow' | 'rule';
export type PackStatus = 'draft' | 'certified' | 'deprecated';

export interface PackRefView {
  pack_id: string;
  version: string;
}

export interface PackDependenciesView {
  rule_packs: PackRefView[];
  schemas: Array<{ name: string; version: string }>;
  workflow_packs: PackRefView[];
}

export interface PackVersionView {
  pack_id: string;
  version: string;
  kind: PackKind;
  status: PackStatus;
  owner_tenant: string;
  author: string | null;
  reviewers: string[];
  submitted_at: string;
  certified_at: string | null;
  deprecated_at: string | null;
  /** Set on deprecation: the version to use instead. */
  replacement: PackRefView | null;
  artifact: {
    format: 'json' | 'yaml';
    /** SHA-256 (hex) of the RFC 8785 canonical JSON of `content`. */
    sha256: string | null;
    /** Where the artifact is stored (`rulepack-registry` for rule packs: ask that registry). */
    pointer: { service: 'packs-registry' | 'rulepack-registry'; pack_id: string; version: string };
    /** The parsed workflow pack (platform/contracts/workflow-pack.schema.json); null for rule packs. */
    content: Record<string, unknown> | null;
    /** The artifact exactly as submitted (JSON or YAML text). */
    source: string | null;
  };
  dependencies: PackDependenciesView;
}

export interface DependencyGraphView {
  root: string;
  nodes: Array<{
    id: string;
    kind: 'workflow' | 'rule' | 'schema';
    name: string;
    version: string;
    status: string;
    source: 'catalog' | 'rulepack-registry' | 'schema-registry';
    owner_tenant: string | null;
    replacement: PackRefView | null;
  }>;
  edges: Array<{ from: string; to: string }>;
}

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

  /** The newest certified version (ServiceCallError 404 when there is none). */
  latestCertified(context: ServiceCallContext, packId: string): Promise<PackVersionView> {
    return this.get(context, packId);
  }

  /** The resolved dependency graph: 422 for missing dependencies or cycles, 409 for deprecated ones. */
  dependencies(context: ServiceCallContext, packId: string, version: string): Promise<DependencyGraphView> {
    return serviceRequest(this.endpoint, `packs/${encodeURIComponent(packId)}/versions/${encodeURIComponent(version)}/dependencies`, context);
  }
}
