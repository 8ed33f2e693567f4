// Frameworks and controls: importing OSCAL catalogs and profiles and framework mappings, and
// reading them. An import is checked in this order, cheapest refusal first: the size and depth
// limits, the schema (NIST's for OSCAL), then what no schema can say (counts, nesting, duplicate
// ids, dangling references, the tenant's own frameworks for a profile or mapping). It is written
// in one transaction with its audit event, so a refused or failed import leaves nothing behind.
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import type { CatalogStore } from './catalog.store';
import { FRAMEWORK_IMPORTED_EVENT } from './compliance.audit';
import { assertMayRead, assertMayWrite } from './compliance.policy';
import {
  FRAMEWORK_KEY,
  type Control,
  type Framework,
  type FrameworkKind,
  type ParsedFramework,
} from './compliance.types';
import { assertDocumentLimits } from './oscal/document-limits';
import {
  mappingTarget,
  parseCatalog,
  parseFrameworkMapping,
  parseProfile,
  profileImportTargets,
} from './oscal/oscal-import';
import { schemaIssues, type DocumentSchema } from './oscal/oscal-schemas';

export interface ImportInput {
  framework: string;
  document: unknown;
  tenantId?: string;
}

/** An import's answer: the framework, and whether this call created it (false: the same document was imported before). */
export interface ImportResult {
  framework: Framework;
  created: boolean;
}

const SCHEMA_OF: Record<FrameworkKind, DocumentSchema> = {
  catalog: 'catalog',
  profile: 'profile',
  mapping: 'framework-mapping',
};

export function assertFrameworkKey(value: string, field = 'framework'): void {
  if (!FRAMEWORK_KEY.test(value))
    throw InputError.of([field], `String should match pattern '${FRAMEWORK_KEY.source}'`, 'string_pattern_mismatch');
}

export class CatalogService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly store: CatalogStore,
    private readonly access: TenantAccess,
  ) {}

  private async readTenant(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    assertMayRead(caller);
    return this.access.resolve(caller, requested, ['tenantId'], `compliance.${action}`);
  }

  importCatalog(caller: Caller, input: ImportInput): Promise<ImportResult> {
    return this.import(caller, 'catalog', input);
  }

  importProfile(caller: Caller, input: ImportInput): Promise<ImportResult> {
    return this.import(caller, 'profile', input);
  }

  importMapping(caller: Caller, input: ImportInput): Promise<ImportResult> {
    return this.import(caller, 'mapping', input);
  }

  private async import(caller: Caller, kind: FrameworkKind, input: ImportInput): Promise<ImportResult> {
    assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], `compliance.import_${kind}`);
    assertFrameworkKey(input.framework);
    assertDocumentLimits(input.document);
    const issues = schemaIssues(SCHEMA_OF[kind], input.document);
    if (issues.length > 0) throw new InputError(issues);
    const actor = caller.auth?.username ?? null;
    return this.sql.transaction(async (tx) => {
      const parsed = await this.parse(tx, tenantId, kind, input);
      const existing = await this.store.framework(tx, tenantId, parsed.framework);
      if (existing) return this.sameOrConflict(existing, parsed);
      if (!(await this.store.insertFramework(tx, tenantId, parsed, actor))) {
        // Another import of the same key committed between the read and the insert.
        const raced = await this.store.framework(tx, tenantId, parsed.framework);
        if (raced) return this.sameOrConflict(raced, parsed);
      }
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: FRAMEWORK_IMPORTED_EVENT,
          actor,
          data: {
            framework: parsed.framework,
            kind,
            oscal_uuid: parsed.oscalUuid,
            version: parsed.version,
            sha256: parsed.sha256,
            controls: parsed.controls.length,
          },
        }),
      );
      const framework = await this.store.framework(tx, tenantId, parsed.framework);
      return { framework: framework!, created: true };
    });
  }

  private sameOrConflict(existing: Framework, parsed: ParsedFramework): ImportResult {
    if (existing.sha256 === parsed.sha256 && existing.kind === parsed.kind)
      return { framework: existing, created: false };
    throw new ConflictError(
      `Framework '${parsed.framework}' was imported before with other content; import a new version under a new key`,
    );
  }

  /** The document's controls; a profile or mapping reads the tenant's frameworks it names. */
  private async parse(
    tx: Parameters<CatalogStore['controls']>[0],
    tenantId: string,
    kind: FrameworkKind,
    input: ImportInput,
  ) {
    if (kind === 'catalog') return parseCatalog(input.framework, input.document);
    if (kind === 'profile') {
      const catalogs = new Map<string, Control[]>();
      for (const key of new Set(profileImportTargets(input.document))) {
        const f = await this.store.framework(tx, tenantId, key);
        if (f?.kind === 'catalog') catalogs.set(key, await this.store.controls(tx, tenantId, key));
      }
      return parseProfile(input.framework, input.document, catalogs);
    }
    const target = mappingTarget(input.document);
    const f = await this.store.framework(tx, tenantId, target);
    const controls = f && f.kind !== 'mapping' ? await this.store.controls(tx, tenantId, target) : undefined;
    return parseFrameworkMapping(input.framework, input.document, controls);
  }

  async frameworks(caller: Caller, requestedTenant?: string): Promise<Framework[]> {
    const tenantId = await this.readTenant(caller, requestedTenant, 'frameworks.list');
    return this.store.frameworks(this.sql, tenantId);
  }

  async framework(caller: Caller, key: string, requestedTenant?: string): Promise<Framework> {
    const tenantId = await this.readTenant(caller, requestedTenant, 'frameworks.get');
    return this.frameworkOf(tenantId, key);
  }

  /** A framework of the tenant, or 404 (another tenant's framework is as absent as none). */
  async frameworkOf(tenantId: string, key: string): Promise<Framework> {
    assertFrameworkKey(key);
    const found = await this.store.framework(this.sql, tenantId, key);
    if (!found) throw new NotFoundError(`Framework ${key} not found`);
    return found;
  }

  async controls(caller: Caller, key: string, requestedTenant?: string): Promise<Control[]> {
    const tenantId = await this.readTenant(caller, requestedTenant, 'controls.list');
    await this.frameworkOf(tenantId, key);
    return this.store.controls(this.sql, tenantId, key);
  }

  async control(caller: Caller, key: string, controlId: string, requestedTenant?: string): Promise<Control> {
    const tenantId = await this.readTenant(caller, requestedTenant, 'controls.get');
    return this.controlOf(tenantId, key, controlId);
  }

  async controlOf(tenantId: string, key: string, controlId: string): Promise<Control> {
    assertFrameworkKey(key);
    const [found] = await this.store.controls(this.sql, tenantId, key, [controlId]);
    if (!found) throw new NotFoundError(`Control ${controlId} of framework ${key} not found`);
    return found;
  }
}
