// The packs registry's domain (spec 01, "Pack catalog" and the pack status table): submitting
// workflow packs, reading the catalog under the tenancy rule, resolving dependencies, and the
// promotion steps draft → certified → deprecated. Both doors (rest-compat/packs-registry and
// resolvers.ts) are thin adapters over these methods; each begins with its access check.
import semver from 'semver';
import { assertScope, hasRole, isPlatformOperator, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { parseArtifact } from './pack-artifact';
import type { DependencyGraph, DependencyResolver } from './pack-dependencies';
import {
  checkKind,
  checkPackId,
  checkPageSize,
  checkStatus,
  checkVersion,
  decodePosition,
  encodePosition,
} from './pack.rules';
import type { PacksUnitOfWork } from './pack.store';
import type { PackEntry, PackKind, PacksCaller, PackStatus, Viewer } from './pack.types';

/** Audit event types (docs/packs-registry.md), written through the outbox with each change. */
export const PACK_EVENTS = {
  submitted: 'pack_submitted',
  certified: 'pack_certified',
  deprecated: 'pack_deprecated',
} as const;

/** Roles that may promote a pack in its owner tenant (platform operators may too). */
export const PROMOTER_ROLES = ['admin', 'reviewer'];

export interface SubmitInput {
  artifact: unknown;
  format: unknown;
  /** The owner tenant; the caller's when absent (another needs a platform operator). */
  tenantId?: string;
}

export interface SubmitResult {
  entry: PackEntry;
  /** False when the same content was already stored under this id and version (an idempotent retry). */
  created: boolean;
}

export interface ListInput {
  kind?: unknown;
  status?: unknown;
  first?: unknown;
  after?: string;
  tenantId?: string;
}

export interface PackPage {
  entries: PackEntry[];
  hasNextPage: boolean;
  endCursor: string | null;
}

export class PacksService {
  constructor(
    private readonly stores: PacksUnitOfWork,
    private readonly resolver: DependencyResolver,
    private readonly access: TenantAccess,
    private readonly clock: () => Date = () => new Date(),
    /** The port's mode (serviceRequiresAuth): false trusts the gateway's X-Tenant-ID for reads. */
    private readonly requireAuth = true,
  ) {}

  async submit(caller: PacksCaller, input: SubmitInput): Promise<SubmitResult> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'packs.submit');
    const parsed = parseArtifact(input.artifact, input.format);
    const { pack_id: packId, version } = parsed.content.metadata;
    return this.stores.transaction(async ({ packs, outbox }) => {
      const owner = await packs.ownerOf(packId);
      if (owner && owner.kind === 'rule')
        throw new ConflictError(`Pack id '${packId}' names a rule pack (owned by the rule-pack registry)`);
      if (owner && owner.kind !== parsed.kind)
        throw new ConflictError(`Pack id '${packId}' names a ${owner.kind} pack, not a ${parsed.kind} pack`);
      if (owner && owner.ownerTenant !== tenantId)
        throw new ConflictError(`Pack id '${packId}' belongs to another tenant`);
      const existing = await packs.lockForUpdate(packId, version);
      if (existing) {
        if (existing.artifactSha256 === parsed.sha256) return { entry: existing, created: false };
        throw new ConflictError(
          existing.status === 'draft'
            ? `Pack '${packId}' version ${version} already exists with different content; submit a new version`
            : `Pack '${packId}' version ${version} is ${existing.status} and immutable; submit a new version`,
        );
      }
      const entry = await packs.insert({
        packId,
        version,
        kind: parsed.kind,
        status: 'draft',
        ownerTenant: tenantId,
        author: auth.username,
        submittedAt: this.clock(),
        artifactFormat: parsed.format,
        artifactSource: parsed.source,
        artifactContent: parsed.content,
        artifactSha256: parsed.sha256,
        artifactPointer: { service: 'packs-registry', pack_id: packId, version },
        dependencies: parsed.dependencies,
      });
      await outbox.append(
        auditEvent(caller, {
          tenantId,
          type: PACK_EVENTS.submitted,
          actor: auth.username,
          data: {
            pack_id: packId,
            version,
            kind: parsed.kind,
            format: parsed.format,
            sha256: parsed.sha256,
            dependencies: parsed.dependencies,
          },
        }),
      );
      return { entry, created: true };
    });
  }

  /** The visible entries, ordered by pack id and version, one page at a time. */
  async list(caller: PacksCaller, input: ListInput): Promise<PackPage> {
    const { viewer } = await this.viewerOf(caller, input.tenantId, 'packs.list');
    const filter = { kind: checkKind(input.kind), status: checkStatus(input.status) };
    const first = checkPageSize(input.first);
    const after = input.after === undefined ? undefined : decodePosition(input.after, 'after');
    const rows = await this.stores.list(viewer, filter, first + 1, after);
    const entries = rows.slice(0, first);
    const last = entries[entries.length - 1];
    return {
      entries,
      hasNextPage: rows.length > first,
      endCursor: last ? encodePosition(last.packId, last.version) : null,
    };
  }

  /** Every visible version of a pack, oldest first (semantic version order). */
  async versions(caller: PacksCaller, input: { packId: string; tenantId?: string }): Promise<PackEntry[]> {
    const { viewer } = await this.viewerOf(caller, input.tenantId, 'packs.versions');
    const packId = checkPackId('packId', input.packId);
    const entries = await this.stores.versions(viewer, packId);
    if (entries.length === 0) throw new NotFoundError(`Pack '${packId}' not found`);
    return entries.sort((a, b) => semver.compare(a.version, b.version));
  }

  /** The newest certified version (deprecated ones are never the latest). */
  async latestCertified(caller: PacksCaller, input: { packId: string; tenantId?: string }): Promise<PackEntry> {
    const all = await this.versions(caller, input);
    const certified = all.filter((e) => e.status === 'certified');
    if (certified.length === 0) throw new NotFoundError(`Pack '${input.packId}' has no certified version`);
    return certified[certified.length - 1]!;
  }

  async get(caller: PacksCaller, input: { packId: string; version: string; tenantId?: string }): Promise<PackEntry> {
    const { viewer } = await this.viewerOf(caller, input.tenantId, 'packs.get');
    return this.visibleEntry(caller, viewer, input, 'packs.get');
  }

  /**
   * Several entries in one read (entity references), each as get() would answer it: null where
   * get() is NOT_FOUND, the error where it fails (a malformed id or version, a refused draft).
   */
  async getMany(
    caller: PacksCaller,
    refs: readonly { packId: string; version: string }[],
  ): Promise<(PackEntry | null | Error)[]> {
    const { viewer } = await this.viewerOf(caller, undefined, 'packs.get');
    const checked = refs.map((r) => {
      try {
        return { packId: checkPackId('packId', r.packId), version: checkVersion('version', r.version) };
      } catch (err) {
        return err as Error;
      }
    });
    const valid = checked.filter((c): c is { packId: string; version: string } => !(c instanceof Error));
    const found = new Map(
      (await this.stores.findMany(viewer, valid)).map((e) => [JSON.stringify([e.packId, e.version]), e]),
    );
    return Promise.all(
      checked.map(async (c) => {
        if (c instanceof Error) return c;
        const entry = found.get(JSON.stringify([c.packId, c.version]));
        if (!entry) return null;
        // As in visibleEntry: an operator's look at a tenant's unpublished draft is recorded.
        if (viewer === 'all' && entry.status === 'draft') {
          try {
            await this.access.resolve(caller, entry.ownerTenant, ['tenantId'], 'packs.get');
          } catch (err) {
            return err as Error;
          }
        }
        return entry;
      }),
    );
  }

  /** The resolved dependency graph; refuses missing, deprecated and cyclic dependencies. */
  async dependencies(
    caller: PacksCaller,
    input: { packId: string; version: string; tenantId?: string },
  ): Promise<DependencyGraph> {
    const { viewer, tenantId } = await this.viewerOf(caller, input.tenantId, 'packs.dependencies');
    const entry = await this.visibleEntry(caller, viewer, input, 'packs.dependencies');
    if (entry.kind === 'rule') return ruleGraph(entry);
    return this.resolver.resolve(viewer, callContext(caller, viewer, tenantId), entry, { requireCertified: false });
  }

  /** draft → certified (spec 01's status table), once every dependency resolves and is certified. */
  async certify(
    caller: PacksCaller,
    input: { packId: string; version: string; tenantId?: string },
  ): Promise<PackEntry> {
    const { auth, viewer, tenantId } = await this.promoterOf(caller, input.tenantId, 'packs.certify');
    this.access.requireMfa(caller, 'certify a pack');
    const entry = await this.promotable(caller, auth, viewer, input, 'certify');
    if (entry.status !== 'draft')
      throw new ConflictError(
        `Only a draft can be certified; pack '${entry.packId}' version ${entry.version} is ${entry.status}`,
      );
    await this.resolver.resolve(viewer, callContext(caller, viewer, tenantId), entry, { requireCertified: true });
    return this.transition(
      caller,
      auth,
      entry,
      'draft',
      { status: 'certified', certifiedAt: this.clock() },
      PACK_EVENTS.certified,
      {},
    );
  }

  /** certified → deprecated, optionally naming a certified version of the same pack to use instead. */
  async deprecate(
    caller: PacksCaller,
    input: { packId: string; version: string; replacementVersion?: string | null; tenantId?: string },
  ): Promise<PackEntry> {
    const { auth, viewer } = await this.promoterOf(caller, input.tenantId, 'packs.deprecate');
    const replacementVersion =
      input.replacementVersion == null ? undefined : checkVersion('replacementVersion', input.replacementVersion);
    const entry = await this.promotable(caller, auth, viewer, input, 'deprecate');
    if (entry.status !== 'certified')
      throw new ConflictError(
        `Only a certified version can be deprecated; pack '${entry.packId}' version ${entry.version} is ${entry.status}`,
      );
    let replacement = null;
    if (replacementVersion !== undefined) {
      if (replacementVersion === entry.version)
        throw InputError.of(['replacementVersion'], 'A version cannot replace itself', 'value_error');
      const candidate = await this.stores.find(viewer, entry.packId, replacementVersion);
      if (!candidate)
        throw InputError.of(
          ['replacementVersion'],
          `Pack '${entry.packId}' has no version ${replacementVersion}`,
          'value_error',
        );
      if (candidate.status !== 'certified')
        throw InputError.of(
          ['replacementVersion'],
          `Version ${replacementVersion} is ${candidate.status}; a replacement must be certified`,
          'value_error',
        );
      replacement = { pack_id: entry.packId, version: replacementVersion };
    }
    return this.transition(
      caller,
      auth,
      entry,
      'certified',
      { status: 'deprecated', deprecatedAt: this.clock(), replacement },
      PACK_EVENTS.deprecated,
      { replacement },
    );
  }

  /**
   * The caller's view: platform operators naming no tenant see every tenant's drafts (spec: drafts
   * are visible to their owner tenant and platform operators); everyone else their tenant's view.
   * A caller without a token reaches this only when the port trusts the gateway
   * (PACKS_REGISTRY_REQUIRE_AUTH / REQUIRE_AUTH false): it reads as the tenant of X-Tenant-ID.
   */
  private async viewerOf(
    caller: PacksCaller,
    requested: string | undefined,
    action: string,
  ): Promise<{ auth?: AuthContext; viewer: Viewer; tenantId: string }> {
    const auth = this.requireAuth ? requireAuth(caller) : caller.auth;
    const tenantId = await this.access.resolve(caller, requested, ['tenantId'], action);
    const everything =
      auth !== undefined && isPlatformOperator(auth) && requested === undefined && caller.headerTenant === undefined;
    return { auth, viewer: everything ? 'all' : { tenantId }, tenantId };
  }

  /** Promotions name a reviewer: a token is required whatever the port's mode. */
  private async promoterOf(
    caller: PacksCaller,
    requested: string | undefined,
    action: string,
  ): Promise<{ auth: AuthContext; viewer: Viewer; tenantId: string }> {
    const auth = requireAuth(caller);
    return { ...(await this.viewerOf(caller, requested, action)), auth };
  }

  /** The entry if the viewer may see it, else 404 (another tenant's draft is indistinguishable from none). */
  private async visibleEntry(
    caller: PacksCaller,
    viewer: Viewer,
    input: { packId: string; version: string },
    action: string,
  ): Promise<PackEntry> {
    const packId = checkPackId('packId', input.packId);
    const version = checkVersion('version', input.version);
    const entry = await this.stores.find(viewer, packId, version);
    if (!entry) throw new NotFoundError(`Pack '${packId}' version ${version} not found`);
    // An operator's look at a tenant's unpublished draft is recorded in that tenant's ledger.
    if (viewer === 'all' && entry.status === 'draft')
      await this.access.resolve(caller, entry.ownerTenant, ['tenantId'], action);
    return entry;
  }

  /**
   * Promotion steps need role admin or reviewer in the pack's owner tenant (or a platform
   * operator), and are never the author's own (four eyes). Rule packs are promoted by the
   * rule-pack registry, not here.
   */
  private async promotable(
    caller: PacksCaller,
    auth: AuthContext,
    viewer: Viewer,
    input: { packId: string; version: string },
    step: string,
  ): Promise<PackEntry> {
    const entry = await this.visibleEntry(caller, viewer, input, `packs.${step}`);
    if (entry.kind === 'rule')
      throw new ConflictError(`Rule pack '${entry.packId}' is promoted by the rule-pack registry`);
    const inOwnerTenant =
      auth.tenantId === entry.ownerTenant && !auth.isService && PROMOTER_ROLES.some((r) => hasRole(auth, r));
    if (!inOwnerTenant && !isPlatformOperator(auth))
      throw new ForbiddenError(`To ${step} a pack needs role admin or reviewer in its owner tenant`);
    if (entry.author !== null && entry.author === auth.username)
      throw new ForbiddenError(`The author of a pack cannot ${step} it`);
    return entry;
  }

  private async transition(
    caller: PacksCaller,
    auth: AuthContext,
    entry: PackEntry,
    from: PackStatus,
    change: { status: PackStatus; certifiedAt?: Date; deprecatedAt?: Date; replacement?: PackEntry['replacement'] },
    eventType: string,
    extra: Record<string, unknown>,
  ): Promise<PackEntry> {
    return this.stores.transaction(async ({ packs, outbox }) => {
      const current = await packs.lockForUpdate(entry.packId, entry.version);
      // Someone else moved it between the checks and this transaction.
      if (!current || current.status !== from)
        throw new ConflictError(
          `Pack '${entry.packId}' version ${entry.version} is ${current?.status ?? 'gone'}; expected ${from}`,
        );
      const reviewers = current.reviewers.includes(auth.username)
        ? current.reviewers
        : [...current.reviewers, auth.username];
      const updated = await packs.update(entry.packId, entry.version, { ...change, reviewers });
      await outbox.append(
        auditEvent(caller, {
          tenantId: entry.ownerTenant,
          type: eventType,
          actor: auth.username,
          data: {
            pack_id: entry.packId,
            version: entry.version,
            kind: entry.kind as PackKind,
            status: change.status,
            sha256: entry.artifactSha256,
            ...extra,
          },
        }),
      );
      return updated;
    });
  }
}

/** What the registries are asked with: the caller's own token and the tenant the caller acts in. */
function callContext(caller: PacksCaller, viewer: Viewer, tenantId: string): ServiceCallContext {
  return {
    token: caller.token,
    tenantId: viewer === 'all' ? undefined : tenantId,
    correlationId: caller.correlationId,
  };
}

/** A rule pack's dependencies are the rule-pack registry's business: its graph is itself. */
function ruleGraph(entry: PackEntry): DependencyGraph {
  const id = `rule:${entry.packId}@${entry.version}`;
  return {
    root: id,
    nodes: [
      {
        id,
        kind: 'rule',
        name: entry.packId,
        version: entry.version,
        status: entry.status,
        source: 'catalog',
        ownerTenant: entry.ownerTenant,
        replacement: entry.replacement,
      },
    ],
    edges: [],
  };
}
