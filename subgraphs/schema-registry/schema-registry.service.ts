// The schema registry's domain operations. Both doors (rest-compat/schema-registry and
// resolvers.ts) are thin adapters over these methods. Each takes the Caller first and begins with
// its checks (authenticated, scope, the tenant rule), then validates, then reads or writes
// through the store; every change commits together with its audit event (outbox).
import semver from 'semver';
import { hasScope, isPlatformOperator, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  type InputIssue,
} from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { textCursor } from '../../platform/pagination/cursor';
import { unstorableText } from '../../platform/text';
import { checkCompatibility, COMPATIBILITY_MODES, type CompatibilityResult } from './schema-compatibility';
import { assertDraft07, fingerprintOf } from './schema-definition';
import type { SchemaStore, SchemaWriteTx } from './schema-registry.store';
import {
  AUDIT_EVENTS,
  PLATFORM_OWNER,
  SCHEMA_KINDS,
  type CompatibilityMode,
  type SchemaKind,
  type SchemaSubject,
  type SchemaVersionRecord,
  type SchemaVersionView,
} from './schema-registry.types';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const NAME = new RegExp(NAME_PATTERN);
export const MAX_VERSION_LENGTH = 64;
export const DEFAULT_COMPATIBILITY: CompatibilityMode = 'BACKWARD';

/** Page cursors: the last name of the page (listings are ordered by name). */
export const nameCursor = textCursor('name');

/** A new version that breaks the subject's compatibility mode (409 with the reasons). */
export class IncompatibleSchemaError extends ConflictError {
  constructor(
    readonly summary: string,
    readonly reasons: string[],
  ) {
    // The message carries the reasons too: GraphQL shows only the message.
    super(`${summary}: ${reasons.join('; ')}`);
  }
}

export interface SchemaPage {
  schemas: SchemaSubject[];
  nextCursor: string | null;
}

export interface RegisterInput {
  tenantId?: string;
  name: string;
  version: string;
  definition: unknown;
  kind?: SchemaKind;
  compatibility?: CompatibilityMode;
}

export interface RegisterResult extends SchemaVersionView {
  /** False when the identical schema was already registered under this version (idempotent replay). */
  created: boolean;
}

/** A contract file of platform/contracts, as the seeding reads it. */
export interface PlatformSchemaInput {
  name: string;
  kind: SchemaKind;
  version: string;
  definition: Record<string, unknown>;
  /** The mode a new subject gets (BACKWARD when absent); an existing subject keeps its own. */
  compatibility?: CompatibilityMode;
}

export type SeedOutcome = 'created' | 'unchanged' | 'older' | 'conflict';

function checkName(issues: InputIssue[], name: unknown): void {
  if (typeof name !== 'string' || !NAME.test(name)) {
    issues.push({
      loc: ['name'],
      msg: `String should match pattern '${NAME_PATTERN}'`,
      type: 'string_pattern_mismatch',
    });
  }
}

function checkVersion(issues: InputIssue[], version: unknown): void {
  // Exact semver, no build metadata: build metadata does not order, so 1.0.0+a and 1.0.0+b
  // could not both be versions of one schema.
  if (
    typeof version !== 'string' ||
    version.length > MAX_VERSION_LENGTH ||
    semver.valid(version) !== version ||
    version.includes('+')
  ) {
    issues.push({
      loc: ['version'],
      msg: 'Input should be a semantic version such as 1.2.0 (no build metadata)',
      type: 'value_error',
    });
  }
}

function checkEnum<T extends string>(issues: InputIssue[], field: string, value: unknown, allowed: readonly T[]): void {
  if (value !== undefined && !allowed.includes(value as T)) {
    issues.push({ loc: [field], msg: `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`, type: 'enum' });
  }
}

function throwIf(issues: InputIssue[]): void {
  if (issues.length > 0) throw new InputError(issues);
}

/** The version segment of a read: a semver string or `latest`. */
function checkReadVersion(version: string): void {
  if (version === 'latest') return;
  if (
    version.length > MAX_VERSION_LENGTH ||
    unstorableText(version) !== undefined ||
    semver.valid(version) !== version
  ) {
    throw new NotFoundError('Schema version not found');
  }
}

export class SchemaRegistryService {
  constructor(
    private readonly store: SchemaStore,
    private readonly access: TenantAccess,
    /** The port's mode (serviceRequiresAuth): false trusts the gateway's X-Tenant-ID for reads. */
    private readonly requireAuth = true,
  ) {}

  async list(
    caller: Caller,
    q: { tenantId?: string; kind?: SchemaKind; first?: number; after?: string },
  ): Promise<SchemaPage> {
    const tenantId = await this.reader(caller, q.tenantId, 'schema-registry.schemas.list');
    const issues: InputIssue[] = [];
    checkEnum(issues, 'kind', q.kind, SCHEMA_KINDS);
    const limit = q.first ?? DEFAULT_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
      issues.push({ loc: ['first'], msg: `Input should be between 1 and ${MAX_PAGE}`, type: 'value_error' });
    throwIf(issues);
    const afterName = q.after === undefined ? undefined : nameCursor.decode(q.after, 'after');
    const rows = await this.store.listVisible(tenantId, { kind: q.kind, afterName, limit: limit + 1 });
    const schemas = rows.slice(0, limit);
    const last = schemas[schemas.length - 1];
    return { schemas, nextCursor: rows.length > limit && last ? nameCursor.encode(last.name) : null };
  }

  /** A page of schemas, each with its latest version (one query for the versions). */
  async listLatest(
    caller: Caller,
    q: { tenantId?: string; kind?: SchemaKind; first?: number; after?: string },
  ): Promise<{ schemas: SchemaVersionView[]; nextCursor: string | null }> {
    const page = await this.list(caller, q);
    const versions = await this.store.latestVersions(page.schemas);
    const byKey = new Map(versions.map((v) => [`${v.owner}\u0000${v.name}`, v]));
    const schemas = page.schemas.flatMap((subject) => {
      const version = byKey.get(`${subject.owner}\u0000${subject.name}`);
      return version ? [{ subject, version }] : [];
    });
    return { schemas, nextCursor: page.nextCursor };
  }

  async versions(
    caller: Caller,
    q: { tenantId?: string; name: string },
  ): Promise<{ subject: SchemaSubject; versions: SchemaVersionRecord[] }> {
    const tenantId = await this.reader(caller, q.tenantId, 'schema-registry.schemas.versions');
    const subject = await this.visibleSubject(tenantId, q.name);
    return { subject, versions: await this.store.listVersions(subject.owner, subject.name) };
  }

  /** `version` is a semver string or `latest`. */
  async get(caller: Caller, q: { tenantId?: string; name: string; version: string }): Promise<SchemaVersionView> {
    const tenantId = await this.reader(caller, q.tenantId, 'schema-registry.schemas.get');
    const subject = await this.visibleSubject(tenantId, q.name);
    checkReadVersion(q.version);
    const version = await this.store.getVersion(
      subject.owner,
      subject.name,
      q.version === 'latest' ? subject.latestVersion : q.version,
    );
    if (!version) throw new NotFoundError(`Schema '${subject.name}' has no version '${q.version}'`);
    return { subject, version };
  }

  /** Several versions in one batch (entity references): null where get() would be NOT_FOUND. */
  async getMany(
    caller: Caller,
    refs: readonly { name: string; version: string }[],
  ): Promise<(SchemaVersionView | null)[]> {
    const tenantId = await this.reader(caller, undefined, 'schema-registry.schemas.get');
    const readable = (r: { name: string; version: string }) => {
      const issues: InputIssue[] = [];
      checkName(issues, r.name);
      if (issues.length > 0) return false;
      try {
        checkReadVersion(r.version);
        return true;
      } catch {
        return false;
      }
    };
    const wanted = refs.filter(readable);
    const subjects = await this.store.findVisibleMany(tenantId, [...new Set(wanted.map((r) => r.name))]);
    const key = (owner: string, name: string, version: string) => JSON.stringify([owner, name, version]);
    const targets = wanted.flatMap((r) => {
      const subject = subjects.get(r.name);
      return subject
        ? [
            {
              owner: subject.owner,
              name: subject.name,
              version: r.version === 'latest' ? subject.latestVersion : r.version,
            },
          ]
        : [];
    });
    const versions = new Map((await this.store.getVersions(targets)).map((v) => [key(v.owner, v.name, v.version), v]));
    return refs.map((r) => {
      const subject = readable(r) ? subjects.get(r.name) : undefined;
      const version =
        subject &&
        versions.get(key(subject.owner, subject.name, r.version === 'latest' ? subject.latestVersion : r.version));
      return subject && version ? { subject, version } : null;
    });
  }

  async register(caller: Caller, input: RegisterInput): Promise<RegisterResult> {
    const auth = requireWrite(caller);
    const tenantId = await this.access.resolve(
      caller,
      input.tenantId,
      ['tenantId'],
      'schema-registry.schemas.register',
    );
    const issues: InputIssue[] = [];
    checkName(issues, input.name);
    checkVersion(issues, input.version);
    checkEnum(issues, 'kind', input.kind, SCHEMA_KINDS);
    checkEnum(issues, 'compatibility', input.compatibility, COMPATIBILITY_MODES);
    throwIf(issues);
    assertDraft07(input.definition, 'definition');
    const definition = input.definition;
    const fingerprint = fingerprintOf(definition);

    return this.store.transaction(async (tx) => {
      const owner = await this.ownerForWrite(tx, auth, tenantId, input.name, input.tenantId !== undefined);
      const existing = await tx.lockSubject(owner, input.name);
      if (existing && existing.versionCount > 0) {
        if (input.kind !== undefined && input.kind !== existing.kind) {
          throw new ConflictError(
            `Schema '${input.name}' is of kind '${existing.kind}'; a schema's kind never changes`,
          );
        }
        if (input.compatibility !== undefined && input.compatibility !== existing.compatibility) {
          throw new ConflictError(
            `Schema '${input.name}' is ${existing.compatibility}; change its mode with PUT /schemas/${input.name}/compatibility`,
          );
        }
        const same = await tx.getVersion(owner, input.name, input.version);
        if (same) {
          if (same.fingerprint === fingerprint) return { subject: existing, version: same, created: false };
          throw new ConflictError(
            `Version ${input.version} of schema '${input.name}' is already registered with a different schema`,
          );
        }
        if (!semver.gt(input.version, existing.latestVersion)) {
          throw new ConflictError(
            `Version ${input.version} is not greater than the latest version ${existing.latestVersion} of schema '${input.name}'`,
          );
        }
        const latest = await tx.getVersion(owner, input.name, existing.latestVersion);
        const result = checkCompatibility(existing.compatibility, latest?.definition ?? {}, definition);
        if (!result.compatible) {
          throw new IncompatibleSchemaError(
            `Schema is not ${existing.compatibility} compatible with version ${existing.latestVersion} of '${input.name}'`,
            result.reasons,
          );
        }
      }
      const subject =
        existing ??
        (await tx.createSubject({
          owner,
          name: input.name,
          kind: input.kind ?? 'data',
          compatibility: input.compatibility ?? DEFAULT_COMPATIBILITY,
        }));
      const added = await tx.appendVersion(subject, {
        version: input.version,
        definition,
        fingerprint,
        createdBy: auth.username,
      });
      await tx.outbox.append(
        auditEvent(caller, {
          tenantId: owner,
          type: AUDIT_EVENTS.registered,
          actor: auth.username,
          data: registeredData(added.subject, added.version),
        }),
      );
      return { ...added, created: true };
    });
  }

  async setCompatibility(
    caller: Caller,
    input: { tenantId?: string; name: string; compatibility: CompatibilityMode },
  ): Promise<SchemaSubject> {
    const auth = requireWrite(caller);
    const tenantId = await this.access.resolve(
      caller,
      input.tenantId,
      ['tenantId'],
      'schema-registry.schemas.compatibility',
    );
    const issues: InputIssue[] = [];
    checkEnum(issues, 'compatibility', input.compatibility ?? null, COMPATIBILITY_MODES);
    throwIf(issues);
    const visible = await this.visibleSubject(tenantId, input.name);
    if (visible.owner === PLATFORM_OWNER && !isPlatformOperator(auth)) {
      throw new ForbiddenError('Built-in platform schemas are managed by platform operators');
    }
    return this.store.transaction(async (tx) => {
      const subject = await tx.lockSubject(visible.owner, visible.name);
      if (!subject) throw new NotFoundError(`Schema '${input.name}' not found`);
      if (subject.compatibility === input.compatibility) return subject;
      const updated = await tx.setCompatibility(subject.owner, subject.name, input.compatibility);
      const latest = await tx.getVersion(subject.owner, subject.name, subject.latestVersion);
      await tx.outbox.append(
        auditEvent(caller, {
          tenantId: subject.owner,
          type: AUDIT_EVENTS.compatibilityChanged,
          actor: auth.username,
          data: {
            name: subject.name,
            kind: subject.kind,
            version: subject.latestVersion,
            fingerprint: latest?.fingerprint ?? null,
            compatibility: input.compatibility,
            previous_compatibility: subject.compatibility,
          },
        }),
      );
      return updated;
    });
  }

  /** Would `definition` be accepted as the next version? Registers nothing. */
  async checkCompatibility(
    caller: Caller,
    input: { tenantId?: string; name: string; definition: unknown },
  ): Promise<CompatibilityResult & { subject: SchemaSubject }> {
    const tenantId = await this.reader(caller, input.tenantId, 'schema-registry.schemas.check');
    const subject = await this.visibleSubject(tenantId, input.name);
    assertDraft07(input.definition, 'definition');
    const latest = await this.store.getVersion(subject.owner, subject.name, subject.latestVersion);
    return { subject, ...checkCompatibility(subject.compatibility, latest?.definition ?? {}, input.definition) };
  }

  /**
   * Seeds one built-in schema (no caller: the service itself, at start). Idempotent: the same
   * version with the same content is left alone, so a restart or a second process changes
   * nothing; a newer version is added; a changed file under an existing version is reported.
   */
  async ensurePlatformSchema(input: PlatformSchemaInput, correlationId: string): Promise<SeedOutcome> {
    assertDraft07(input.definition, 'definition');
    const fingerprint = fingerprintOf(input.definition);
    return this.store.transaction(async (tx) => {
      const subject = await tx.createSubject({
        owner: PLATFORM_OWNER,
        name: input.name,
        kind: input.kind,
        compatibility: input.compatibility ?? DEFAULT_COMPATIBILITY,
      });
      const same = await tx.getVersion(PLATFORM_OWNER, input.name, input.version);
      if (same) return same.fingerprint === fingerprint ? 'unchanged' : 'conflict';
      if (subject.versionCount > 0 && !semver.gt(input.version, subject.latestVersion)) return 'older';
      const added = await tx.appendVersion(subject, {
        version: input.version,
        definition: input.definition,
        fingerprint,
        createdBy: null,
      });
      await tx.outbox.append(
        auditEvent(
          { correlationId },
          {
            tenantId: PLATFORM_OWNER,
            type: AUDIT_EVENTS.registered,
            actor: null,
            data: registeredData(added.subject, added.version),
            description: 'built-in platform schema seeded from platform/contracts',
          },
        ),
      );
      return 'created';
    });
  }

  /**
   * The tenant a read acts in (scope `read`). A caller without a token reaches this only when the
   * port trusts the gateway (SCHEMA_REGISTRY_REQUIRE_AUTH / REQUIRE_AUTH false): X-Tenant-ID's tenant.
   */
  private async reader(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    const auth = this.requireAuth ? requireAuth(caller) : caller.auth;
    if (auth && !hasScope(auth, 'read')) throw new ForbiddenError("Scope 'read' required");
    return this.access.resolve(caller, requested, ['tenantId'], action);
  }

  private async visibleSubject(tenantId: string, name: string): Promise<SchemaSubject> {
    const issues: InputIssue[] = [];
    checkName(issues, name);
    // A name no schema could have is simply not found (it may arrive as a path segment).
    const subject = issues.length > 0 ? undefined : await this.store.findVisible(tenantId, name);
    if (!subject) throw new NotFoundError(`Schema '${String(name).slice(0, 128)}' not found`);
    return subject;
  }

  /**
   * Whose subject a write goes to. Built-in names belong to the platform: only platform operators
   * add their versions (acting without naming a tenant, or naming `platform`), and no tenant may
   * register a name a built-in schema has. Only operators write as the `platform` owner at all.
   */
  private async ownerForWrite(
    tx: SchemaWriteTx,
    auth: AuthContext,
    tenantId: string,
    name: string,
    namedTenant: boolean,
  ): Promise<string> {
    const operator = isPlatformOperator(auth);
    if (tenantId === PLATFORM_OWNER && !operator)
      throw new ForbiddenError('Built-in platform schemas are managed by platform operators');
    const builtIn = await tx.lockSubject(PLATFORM_OWNER, name);
    if (!builtIn || builtIn.versionCount === 0) return tenantId;
    if (operator && (!namedTenant || tenantId === PLATFORM_OWNER)) return PLATFORM_OWNER;
    throw new ConflictError(`'${name}' is a built-in platform schema; a tenant cannot register a schema of that name`);
  }
}

function requireWrite(caller: Caller): AuthContext {
  const auth = requireAuth(caller);
  if (!hasScope(auth, 'write')) throw new ForbiddenError("Scope 'write' required");
  return auth;
}

function registeredData(subject: SchemaSubject, version: SchemaVersionRecord): Record<string, unknown> {
  return {
    name: subject.name,
    version: version.version,
    kind: subject.kind,
    fingerprint: version.fingerprint,
    owner: subject.owner,
  };
}
