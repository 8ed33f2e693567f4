// The validation service's domain operations (spec 03, port 8083): run a rule pack over a
// payload, and list the schemas of the schema registry. Both doors (rest-compat/validation and
// resolvers.ts) are thin adapters over these methods. Each begins with the caller's checks and its
// tenant, then validates the request (422s before any network call), then works.
import { performance } from 'node:perf_hooks';
import { assertScope, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SchemaKind, SchemaSummary, SchemaVersionView } from '../../platform/clients/schema-registry.client';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import {
  AuthenticationError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UnavailableError,
  type InputIssue,
} from '../../platform/errors/domain-errors';
import { InputFormatError, parseRecords, runRulePack } from '../../platform/rule-engine';
import { canonicalText, sha256Hex } from './pack.digest';
import { pathSegments, type ResolvedPack, type RulePackSource } from './rule-pack.source';
import type { RunAudit } from './validation.audit';
import type { ValidationConfig } from './validation.config';
import {
  PAYLOAD_FORMATS,
  type Forwarding,
  type PayloadFormat,
  type RuleExecutionData,
  type ValidateInput,
  type ValidationRun,
} from './validation.types';

export const MAX_ID_LENGTH = 200;
export const MAX_VALIDATION_TYPE_LENGTH = 100;
/** Where an anonymous caller's tenant comes from (REQUIRE_AUTH=false): the gateway's header. */
const TENANT_FIELD = ['header', 'x-tenant-id'];

export interface SchemaLister {
  list(context: ServiceCallContext, filter?: { kind?: SchemaKind }): Promise<{ schemas: SchemaSummary[] }>;
  get(context: ServiceCallContext, name: string, version?: string): Promise<SchemaVersionView>;
}

export interface ValidationServiceDeps {
  packs: RulePackSource;
  schemas: SchemaLister;
  audit: RunAudit;
  access: TenantAccess;
  config: Pick<ValidationConfig, 'maxRecords' | 'requireAuth'>;
}

interface CheckedRequest {
  registry?: { packId: string; version?: string };
  inline?: unknown;
  payload: unknown;
  format: PayloadFormat;
  strictMode: boolean;
  validationType: string;
}

function checkText(issues: InputIssue[], field: string, value: unknown, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'string')
    issues.push({ loc: [field], msg: 'Input should be a valid string', type: 'string_type' });
  else if (value.length === 0)
    issues.push({ loc: [field], msg: 'String should have at least 1 character', type: 'string_too_short' });
  else if (value.length > max)
    issues.push({ loc: [field], msg: `String should have at most ${max} characters`, type: 'string_too_long' });
}

/** The request's shape beyond what each door's own types already enforce. */
export function checkRequest(input: ValidateInput): CheckedRequest {
  const issues: InputIssue[] = [];
  const hasId = input.rulePackId !== undefined && input.rulePackId !== null;
  const hasInline = input.rulePack !== undefined && input.rulePack !== null;
  if (hasId === hasInline) {
    const msg = hasId
      ? 'Give either a registry rule pack id or an inline rule pack, not both'
      : 'A registry rule pack id or an inline rule pack is required';
    issues.push(
      { loc: ['rulePackId'], msg, type: hasId ? 'value_error' : 'missing' },
      { loc: ['rulePack'], msg, type: hasId ? 'value_error' : 'missing' },
    );
  }
  checkText(issues, 'rulePackId', input.rulePackId, MAX_ID_LENGTH);
  checkText(issues, 'rulePackVersion', input.rulePackVersion, MAX_ID_LENGTH);
  if (hasInline && input.rulePackVersion != null)
    issues.push({ loc: ['rulePackVersion'], msg: 'A version applies to registry packs only', type: 'value_error' });
  checkText(issues, 'validationType', input.validationType, MAX_VALIDATION_TYPE_LENGTH);

  const format = input.payloadFormat ?? 'json';
  if (!PAYLOAD_FORMATS.includes(format))
    issues.push({
      loc: ['payloadFormat'],
      msg: `Input should be ${PAYLOAD_FORMATS.map((f) => `'${f}'`).join(', ')}`,
      type: 'enum',
    });
  if (input.payload === undefined || input.payload === null) {
    issues.push({ loc: ['payload'], msg: 'Field required', type: 'missing' });
  } else if (format === 'json' && typeof input.payload !== 'object') {
    issues.push({
      loc: ['payload'],
      msg: 'A JSON payload should be an object (one record) or an array of records',
      type: 'model_type',
    });
  } else if (format !== 'json' && typeof input.payload !== 'string') {
    issues.push({ loc: ['payload'], msg: `A ${format.toUpperCase()} payload should be a string`, type: 'string_type' });
  }
  if (input.strictMode != null && typeof input.strictMode !== 'boolean')
    issues.push({ loc: ['strictMode'], msg: 'Input should be a valid boolean', type: 'bool_type' });
  if (issues.length > 0) throw new InputError(issues);
  return {
    registry: hasId ? { packId: input.rulePackId!, version: input.rulePackVersion ?? undefined } : undefined,
    inline: hasInline ? input.rulePack : undefined,
    payload: input.payload,
    format,
    strictMode: input.strictMode ?? false,
    validationType: input.validationType ?? 'standard',
  };
}

/**
 * SHA-256 of the input as an auditor can recompute it: JSON payloads in RFC 8785 canonical form
 * (key order and number spelling do not change it), CSV and XML as the exact UTF-8 text received.
 */
export function inputDigest(payload: unknown, format: PayloadFormat): string {
  // A string is hashed as its UTF-8 bytes.
  return sha256Hex(format === 'json' ? canonicalText(payload) : (payload as string));
}

export class ValidationService {
  constructor(private readonly deps: ValidationServiceDeps) {}

  private authorize(caller: Caller, scope: 'read' | 'write'): AuthContext | undefined {
    if (this.deps.config.requireAuth) requireAuth(caller);
    if (caller.auth) assertScope(caller.auth, scope);
    return caller.auth;
  }

  private context(caller: Caller, tenantId: string, forward: Forwarding): ServiceCallContext {
    return { token: forward.token, tenantId, correlationId: caller.correlationId };
  }

  async validate(caller: Caller, input: ValidateInput, forward: Forwarding = {}): Promise<ValidationRun> {
    this.authorize(caller, 'write');
    const tenantId = await this.deps.access.resolve(caller, undefined, TENANT_FIELD, 'validation.validate');
    const request = checkRequest(input);
    const started = performance.now();

    const inline = request.inline !== undefined ? this.deps.packs.inlinePack(request.inline) : undefined;
    const records = this.parse(request.payload, request.format);
    const pack: ResolvedPack =
      inline ??
      (await this.deps.packs.registryPack(
        this.context(caller, tenantId, forward),
        request.registry!.packId,
        request.registry!.version,
      ));
    // A JSON object is one record: its failures carry no row.
    const rows = request.format !== 'json' || Array.isArray(request.payload);
    const result = runRulePack(pack.compiled, records, { strictMode: request.strictMode, rows });
    const executionTimeMs = Math.round((performance.now() - started) * 1000) / 1000;

    const inputSha256 = inputDigest(request.payload, request.format);
    const data: RuleExecutionData = {
      rulepack_id: pack.packId,
      rules_executed: result.metadata.rules_executed,
      // FATAL and WARNING failures, exact even when the listed ones are capped.
      violations: result.metadata.violations,
      result: result.valid ? 'passed' : 'failed',
      input_sha256: inputSha256,
      pack_sha256: pack.sha256,
      pack_source: pack.source,
      rule_pack_version: pack.packVersion,
      validation_type: request.validationType,
      payload_format: request.format,
      strict_mode: request.strictMode,
      records: records.length,
    };
    await this.deps.audit.record(caller, tenantId, data);
    return {
      result,
      correlationId: caller.correlationId,
      executionTimeMs,
      rulePackId: pack.packId,
      rulePackVersion: pack.packVersion,
      registryVersion: pack.registryVersion,
      packSource: pack.source,
      packSha256: pack.sha256,
      inputSha256,
      records: records.length,
    };
  }

  /** The payload as records; a malformed one is a 422 naming `payload` (and where in it). */
  private parse(payload: unknown, format: PayloadFormat) {
    let records;
    try {
      // The parser stops at the limit, so an oversized payload is refused before it is all records.
      records = parseRecords(payload, format, { maxRecords: this.deps.config.maxRecords });
    } catch (err) {
      if (!(err instanceof InputFormatError)) throw err;
      throw InputError.of(['payload', ...pathSegments(err.path)], err.message, 'value_error');
    }
    if (records.length > this.deps.config.maxRecords) {
      throw InputError.of(
        ['payload'],
        `At most ${this.deps.config.maxRecords} records per run, got ${records.length}`,
        'too_long',
      );
    }
    return records;
  }

  /** The schema registry's schemas the caller's tenant may read (built-in ones and its own). */
  async listSchemas(
    caller: Caller,
    filter: { kind?: SchemaKind },
    forward: Forwarding = {},
  ): Promise<{ schemas: SchemaSummary[] }> {
    this.authorize(caller, 'read');
    const tenantId = await this.deps.access.resolve(caller, undefined, TENANT_FIELD, 'validation.schemas.list');
    const answer = await this.fromSchemaRegistry(() =>
      this.deps.schemas.list(this.context(caller, tenantId, forward), filter),
    );
    return { schemas: Array.isArray(answer?.schemas) ? answer.schemas : [] };
  }

  /** One schema version (`latest` by default) as the schema registry shows it to the caller's tenant. */
  async getSchema(
    caller: Caller,
    name: string,
    version: string | undefined,
    forward: Forwarding = {},
  ): Promise<SchemaVersionView> {
    this.authorize(caller, 'read');
    const tenantId = await this.deps.access.resolve(caller, undefined, TENANT_FIELD, 'validation.schemas.get');
    return this.fromSchemaRegistry(
      () => this.deps.schemas.get(this.context(caller, tenantId, forward), name, version ?? 'latest'),
      `Schema '${name}'${version ? ` version '${version}'` : ''} not found`,
    );
  }

  private async fromSchemaRegistry<T>(call: () => Promise<T>, notFound = 'Not found'): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ServiceCallError)) throw err;
      if (err.status === 404) throw new NotFoundError(notFound);
      if (err.status === 401) throw new AuthenticationError('The schema registry requires an authenticated caller');
      if (err.status === 403) throw new ForbiddenError('The schema registry refused access');
      if (err.status === 400 || err.status === 422)
        throw InputError.of(['version'], 'Not a valid schema version for the schema registry', 'value_error');
      throw new UnavailableError('The schema registry is unavailable, retry shortly', 1);
    }
  }
}
