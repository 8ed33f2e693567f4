// The schema registry service's API as other services call it, in wire names: the request and
// response types of platform/clients/schema-registry.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export type SchemaKind = 'rule-pack' | 'workflow-pack' | 'data';

export type CompatibilityMode = 'BACKWARD' | 'FORWARD' | 'FULL' | 'NONE';

export interface SchemaVersionView {
  name: string;
  kind: SchemaKind;
  version: string;
  schema: Record<string, unknown>;
  compatibility: CompatibilityMode;
  /** 'platform' for the built-in schemas every tenant reads, else the owning tenant. */
  owner: string;
  created_at: string;
  created_by: string | null;
  /** SHA-256 of the schema's RFC 8785 canonical JSON (added with the service). */
  fingerprint?: string;
}

export interface SchemaSummary {
  name: string;
  kind: SchemaKind;
  latest_version: string;
  compatibility: CompatibilityMode;
  owner: string;
}

export interface RegisterSchemaRequest {
  version: string;
  schema: Record<string, unknown>;
  /** Applies when the schema is new (default `data`); must match an existing schema's kind. */
  kind?: SchemaKind;
  /** Applies when the schema is new (default BACKWARD); change it later with setCompatibility. */
  compatibility?: CompatibilityMode;
}

export interface CompatibilityCheck {
  compatible: boolean;
  /** Each names the JSON pointer (`#/properties/x`) in the candidate it concerns. */
  reasons: string[];
}
