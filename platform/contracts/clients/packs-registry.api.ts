// The packs registry service's API as other services call it, in wire names: the request and
// response types of platform/clients/packs-registry.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export type PackKind = 'workflow' | 'rule' | 'dataflow';

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
