// The config service's API as other services call it, in wire names: the request and response
// types of platform/clients/config.client.ts (docs/config.md is the wire contract).

export interface ConfigProvenanceView {
  pointer: string;
  layer: 'platform' | 'suite' | 'module' | 'tenant';
  bundle_id: string;
  version: number;
  seq: number;
}

export interface EffectiveConfigView {
  tenant_id: string;
  seq: number;
  /** { <namespace>: merged content } */
  config: Record<string, unknown>;
  provenance: ConfigProvenanceView[];
}

export interface EffectiveConfigQuery {
  suite?: string;
  module?: string;
  namespace?: string;
  user?: string;
  as_of?: string;
  /** Needs a service token with the `config:secrets` scope. */
  resolve_secrets?: boolean;
}
