// Pipelines as data: a definition (JSON, or YAML turned into JSON) is checked against the
// schema registry's `ingestion-pipeline` schema, then compiled (its JSONata mapping and target
// schema must compile, its PII policy must name mapped fields), then stored as the next version
// of the tenant's pipeline. Every method takes the Caller first.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import YAML from 'yaml';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { assertScope } from '../../platform/auth/auth-context';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { INGESTION_PIPELINE_EVENT } from './ingestion.audit';
import { compileNormaliser } from './normaliser';
import type { PipelineSchemaSource } from './pipeline-schema.source';
import type { PipelineStore } from './pipeline.store';
import type { Pipeline, PipelineDefinition, PipelineVersion } from './pipeline.types';

export interface DefinitionInput {
  /** The definition as JSON, or... */
  definition?: unknown;
  /** ...as YAML text. */
  yaml?: string;
}

const MAX_YAML = 256 * 1024;

export function definitionSha256(definition: PipelineDefinition): string {
  return createHash('sha256')
    .update(canonicalize(definition) ?? '')
    .digest('hex');
}

export class PipelineService {
  constructor(
    private readonly deps: {
      store: PipelineStore;
      schema: PipelineSchemaSource;
      access: TenantAccess;
      requireAuth: boolean;
    },
  ) {}

  async tenant(caller: Caller, requested: string | undefined, action: string, write = false): Promise<string> {
    if (this.deps.requireAuth) requireAuth(caller);
    if (write && caller.auth) assertScope(caller.auth, 'write');
    return this.deps.access.resolve(caller, requested, ['tenant_id'], action);
  }

  /** Parses and checks a definition; an InputError names what is wrong. */
  async check(caller: Caller, input: DefinitionInput): Promise<PipelineDefinition> {
    let value = input.definition;
    if (input.yaml !== undefined) {
      if (input.yaml.length > MAX_YAML) throw InputError.of(['yaml'], `at most ${MAX_YAML} characters`);
      try {
        // No custom tags and a bound on aliases: a YAML bomb is refused, not expanded.
        value = YAML.parse(input.yaml, { maxAliasCount: 50, customTags: [], prettyErrors: false });
      } catch (err) {
        throw InputError.of(['yaml'], `not YAML: ${(err as Error).message}`);
      }
    }
    if (value === undefined) throw InputError.of(['definition'], 'Field required', 'missing');
    const { validate, source } = await this.deps.schema.current({ correlationId: caller.correlationId });
    if (!validate(value)) {
      throw new InputError(
        (validate.errors ?? []).slice(0, 20).map((e) => ({
          loc: ['definition', ...e.instancePath.split('/').filter(Boolean)],
          msg: `${e.message ?? 'invalid'} (schema ${source})`,
          type: `value_error.${e.keyword}`,
        })),
      );
    }
    const definition = value as PipelineDefinition;
    compileNormaliser(definition);
    for (const field of Object.keys(definition.pii?.fields ?? {})) {
      if (!(field in definition.mapping)) {
        throw InputError.of(['definition', 'pii', 'fields', field], 'names no mapped target field');
      }
    }
    return definition;
  }

  async create(caller: Caller, input: DefinitionInput & { tenantId?: string }): Promise<Pipeline> {
    const tenantId = await this.tenant(caller, input.tenantId, 'create an ingestion pipeline', true);
    const definition = await this.check(caller, input);
    const actor = caller.auth?.username ?? null;
    const created = await this.deps.store.create(
      tenantId,
      definition,
      definitionSha256(definition),
      actor,
      auditEvent(caller, {
        tenantId,
        type: INGESTION_PIPELINE_EVENT,
        actor,
        data: { action: 'created', name: definition.name, version: 1, source_kind: definition.source.kind },
      }),
    );
    if (!created) throw new ConflictError(`a pipeline named '${definition.name}' exists`);
    return created;
  }

  /** A new version of an existing pipeline (the name may not change). */
  async update(caller: Caller, id: string, input: DefinitionInput & { tenantId?: string }): Promise<Pipeline> {
    const tenantId = await this.tenant(caller, input.tenantId, 'version an ingestion pipeline', true);
    const current = await this.deps.store.get(tenantId, id);
    if (!current) throw new NotFoundError('Pipeline not found');
    const definition = await this.check(caller, input);
    if (definition.name !== current.name) throw InputError.of(['definition', 'name'], 'a pipeline keeps its name');
    const sha = definitionSha256(definition);
    if (sha === current.definitionSha256) return current;
    const actor = caller.auth?.username ?? null;
    const updated = await this.deps.store.addVersion(
      tenantId,
      id,
      definition,
      sha,
      actor,
      auditEvent(caller, {
        tenantId,
        type: INGESTION_PIPELINE_EVENT,
        actor,
        data: { action: 'versioned', pipeline_id: id, name: definition.name, version: current.version + 1 },
      }),
    );
    if (!updated) throw new NotFoundError('Pipeline not found');
    return updated;
  }

  async get(caller: Caller, id: string, requestedTenant?: string): Promise<Pipeline> {
    const tenantId = await this.tenant(caller, requestedTenant, 'read an ingestion pipeline');
    const found = await this.deps.store.get(tenantId, id);
    if (!found) throw new NotFoundError('Pipeline not found');
    return found;
  }

  /** The batch function of the GraphQL entity loader: null per id the tenant has no pipeline of. */
  async byIds(caller: Caller, ids: readonly string[]): Promise<(Pipeline | null)[]> {
    const tenantId = await this.tenant(caller, undefined, 'read ingestion pipelines');
    const found = new Map((await this.deps.store.byIds(tenantId, ids)).map((p) => [p.id, p]));
    return ids.map((id) => found.get(id) ?? null);
  }

  async list(caller: Caller, requestedTenant?: string, limit = 100): Promise<Pipeline[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'list ingestion pipelines');
    return this.deps.store.list(tenantId, Math.min(Math.max(limit, 1), 500));
  }

  async versions(caller: Caller, id: string, requestedTenant?: string): Promise<PipelineVersion[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'read an ingestion pipeline');
    const versions = await this.deps.store.versions(tenantId, id);
    if (versions.length === 0) throw new NotFoundError('Pipeline not found');
    return versions;
  }

  async remove(caller: Caller, id: string, requestedTenant?: string): Promise<void> {
    const tenantId = await this.tenant(caller, requestedTenant, 'delete an ingestion pipeline', true);
    const actor = caller.auth?.username ?? null;
    const removed = await this.deps.store.remove(
      tenantId,
      id,
      auditEvent(caller, {
        tenantId,
        type: INGESTION_PIPELINE_EVENT,
        actor,
        data: { action: 'deleted', pipeline_id: id },
      }),
    );
    if (!removed) throw new NotFoundError('Pipeline not found');
  }
}
