// Typed client for the schema registry (8084). Wire contract: docs/schema-registry.md.
import { serviceRequest, type ServiceCallContext } from './service-request';

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
}

export interface SchemaSummary {
  name: string;
  kind: SchemaKind;
  latest_version: string;
  compatibility: CompatibilityMode;
  owner: string;
}

export class SchemaRegistryClient {
  constructor(private readonly baseUrl: string) {}

  list(context: ServiceCallContext, filter: { kind?: SchemaKind } = {}): Promise<{ schemas: SchemaSummary[] }> {
    return serviceRequest(this.baseUrl, 'schemas', context, { query: { kind: filter.kind } });
  }

  /** `version` is a semver string or 'latest'; a missing schema or version is a ServiceCallError with status 404. */
  get(context: ServiceCallContext, name: string, version = 'latest'): Promise<SchemaVersionView> {
    return serviceRequest(this.baseUrl, `schemas/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`, context);
  }
}
