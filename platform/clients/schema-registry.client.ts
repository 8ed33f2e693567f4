// Typed client for the schema registry (8084). Wire contract: docs/schema-registry.md.
import type { DelegatedIdentity } from '../auth/service-identity';
import { serviceRequest, type ServiceCallContext, type ServiceEndpoint } from './service-request';
import type {
  SchemaKind,
  CompatibilityMode,
  SchemaVersionView,
  SchemaSummary,
  RegisterSchemaRequest,
  CompatibilityCheck,
} from '../contracts/clients/schema-registry.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type {
  SchemaKind,
  CompatibilityMode,
  SchemaVersionView,
  SchemaSummary,
  RegisterSchemaRequest,
  CompatibilityCheck,
};

export class SchemaRegistryClient {
  private readonly endpoint: ServiceEndpoint;

  /** `identity`: the calling service's, used for callers without a token (service-request.ts). */
  constructor(baseUrl: string, identity?: DelegatedIdentity) {
    this.endpoint = { baseUrl, identity };
  }

  /** One page (default 50, at most 200) ordered by name; `next_cursor` is null on the last page. */
  list(
    context: ServiceCallContext,
    filter: { kind?: SchemaKind; limit?: number; cursor?: string } = {},
  ): Promise<{ schemas: SchemaSummary[]; next_cursor?: string | null }> {
    return serviceRequest(this.endpoint, 'schemas', context, {
      query: { kind: filter.kind, limit: filter.limit, cursor: filter.cursor },
    });
  }

  /** `version` is a semver string or 'latest'; a missing schema or version is a ServiceCallError with status 404. */
  get(context: ServiceCallContext, name: string, version = 'latest'): Promise<SchemaVersionView> {
    return serviceRequest(
      this.endpoint,
      `schemas/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`,
      context,
    );
  }

  /** Versions of a schema, oldest first. */
  versions(context: ServiceCallContext, name: string): Promise<{ name: string; versions: string[] }> {
    return serviceRequest(this.endpoint, `schemas/${encodeURIComponent(name)}/versions`, context);
  }

  /**
   * Registers a version (201; the identical schema under the same version again: 200). A
   * ServiceCallError 409 when the version exists with other content, is not greater than the
   * latest, or breaks the compatibility mode (body `{detail: {message, reasons}}`); 422 when the
   * schema is not a JSON Schema draft-07.
   */
  register(context: ServiceCallContext, name: string, request: RegisterSchemaRequest): Promise<SchemaVersionView> {
    return serviceRequest(this.endpoint, `schemas/${encodeURIComponent(name)}/versions`, context, {
      method: 'POST',
      body: request,
    });
  }

  setCompatibility(
    context: ServiceCallContext,
    name: string,
    compatibility: CompatibilityMode,
  ): Promise<SchemaSummary> {
    return serviceRequest(this.endpoint, `schemas/${encodeURIComponent(name)}/compatibility`, context, {
      method: 'PUT',
      body: { compatibility },
    });
  }

  /** Would `schema` be accepted as the next version of `name`? Registers nothing. */
  checkCompatibility(
    context: ServiceCallContext,
    name: string,
    schema: Record<string, unknown>,
  ): Promise<CompatibilityCheck> {
    return serviceRequest(this.endpoint, `schemas/${encodeURIComponent(name)}/compatibility-check`, context, {
      method: 'POST',
      body: { schema },
    });
  }
}
