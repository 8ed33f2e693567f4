// The rule-pack registry's domain: submission (checked, canonicalised, hashed, stored as a draft),
// the lifecycle of spec 01's table (draft → review → certified → deprecated, review → draft on
// rejection), signing on certification, and the reads. Both doors (rest-compat and resolvers) are
// thin adapters over these methods. Each method takes the Caller first and begins with its
// checks; input problems name domain fields (`pack`, `replacementVersion`).
import semver from 'semver';
import { assertScope, isPlatformOperator } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { withDbRetry } from '../../platform/db/db-retry';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { textCursor } from '../../platform/pagination/cursor';
import {
  RULEPACK_CERTIFIED,
  RULEPACK_DEPRECATED,
  rulePackNotice,
  type RulePackNoticeContract,
} from '../../platform/contracts/rulepack.events';
import { unstorableText } from '../../platform/text';
import { RULEPACK_EVENTS } from './rulepack-registry.audit';
import { packSha256, signPack } from './pack-signature';
import { checkSubmission, type PackCompiler, type SubmittedPack } from './pack-validation';
import { mayDecide, mayRequestReview } from './rulepack-registry.policy';
import {
  ALL_TENANTS,
  PUBLISHED_STATUSES,
  RULEPACK_STATUSES,
  type DecisionKind,
  type DecisionRecord,
  type PackRef,
  type RulePackStatus,
  type RulePackStores,
  type RulePackUnitOfWork,
  type RulePackVersionRecord,
  type Transition,
  type ViewerScope,
} from './rulepack-registry.types';
import type { SigningKeys } from './signing-keys.service';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
export const MAX_NOTES = 4000;

/** Page cursors: the last (pack id, version) of a page; neither contains a space. */
export const packPosition = textCursor('pv');

function encodePosition(ref: PackRef): string {
  return packPosition.encode(`${ref.packId} ${ref.version}`);
}

function decodePosition(cursor: string, field: string): PackRef {
  const text = packPosition.decode(cursor, field);
  const [packId, version, ...rest] = text.split(' ');
  if (!packId || !version || rest.length > 0) throw InputError.of([field], 'Invalid cursor');
  return { packId, version };
}

export interface SubmitResult {
  version: RulePackVersionRecord;
  /** False when the same content was already stored under this id and version (idempotent). */
  created: boolean;
}

export interface RulePackPage {
  versions: RulePackVersionRecord[];
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface DeprecateInput {
  /** A certified version of the same pack to use instead. */
  replacementVersion?: string | null;
  /** Or a certified version of any pack. */
  replacement?: PackRef | null;
  notes?: string | null;
}

/** Called after a change with a notice commits: wakes the notice relay, which publishes it. */
export type NoticeSink = () => void;

const describe = (ref: PackRef) => `Rule pack '${ref.packId}' version '${ref.version}'`;

function checkNotes(notes: string | null | undefined, required: boolean): string | null {
  if (notes === undefined || notes === null || notes === '') {
    if (required) throw InputError.of(['notes'], 'Field required', 'missing');
    return null;
  }
  if (typeof notes !== 'string') throw InputError.of(['notes'], 'Input should be a valid string', 'string_type');
  if (notes.length > MAX_NOTES)
    throw InputError.of(['notes'], `String should have at most ${MAX_NOTES} characters`, 'string_too_long');
  if (unstorableText(notes))
    throw InputError.of(['notes'], 'String should not contain NUL characters or unpaired surrogates');
  return notes;
}

export class RulePackService {
  constructor(
    private readonly stores: RulePackUnitOfWork,
    private readonly keys: SigningKeys,
    private readonly compile: PackCompiler,
    private readonly access: TenantAccess,
    private readonly onCommitted: NoticeSink = () => {},
    /** The port's mode (serviceRequiresAuth): false trusts the gateway's X-Tenant-ID for reads. */
    private readonly requireAuth = true,
  ) {}

  private read<T>(work: () => Promise<T>): Promise<T> {
    return withDbRetry(work);
  }

  /**
   * Whose unpublished versions the caller sees: its tenant's (for a service account, the tenant
   * it acts for by X-Tenant-ID), or every tenant's for a platform operator. A caller without a
   * token reaches this only when the port trusts the gateway (RULEPACK_REGISTRY_REQUIRE_AUTH /
   * REQUIRE_AUTH false): X-Tenant-ID's tenant.
   */
  private async viewer(caller: Caller, action: string): Promise<{ tenantId: string; scope: ViewerScope }> {
    if (this.requireAuth) requireAuth(caller);
    const tenantId = await this.access.resolve(caller, undefined, ['tenantId'], action);
    return { tenantId, scope: caller.auth && isPlatformOperator(caller.auth) ? ALL_TENANTS : tenantId };
  }

  /** The version as the caller may see it, or 404; an operator's look at another tenant's draft is recorded. */
  private async visible(caller: Caller, ref: PackRef, action: string): Promise<RulePackVersionRecord> {
    const { scope } = await this.viewer(caller, action);
    const found = await this.read(() => this.stores.packs.findVersion(scope, ref));
    if (!found) throw new NotFoundError(`${describe(ref)} not found`);
    const auth = caller.auth;
    if (
      auth &&
      isPlatformOperator(auth) &&
      auth.tenantId !== found.ownerTenant &&
      !PUBLISHED_STATUSES.includes(found.status)
    ) {
      await this.access.resolve(caller, found.ownerTenant, ['tenantId'], action);
    }
    return found;
  }

  // ------------------------------------------------------------------ submission

  async submit(caller: Caller, input: SubmittedPack): Promise<SubmitResult> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenantId = await this.access.resolve(caller, undefined, ['tenantId'], 'rulepack.submit');
    const { pack, packId, version } = checkSubmission(input, this.compile);
    const sha256 = packSha256(pack);
    const ref = { packId, version };
    return this.stores.transaction(async (s) => {
      const owner = await s.packs.claimPack(packId, tenantId);
      // Pack ids are one namespace (every tenant reads certified packs by id): the first tenant to
      // submit an id owns it. This says the id is taken, nothing of what is under it.
      if (owner !== tenantId)
        throw new ConflictError(`Rule pack id '${packId}' belongs to another tenant; choose another pack_id`);
      const inserted = await s.packs.insertVersion({
        packId,
        version,
        pack,
        sha256,
        ownerTenant: tenantId,
        author: auth.username,
      });
      if (!inserted) {
        const existing = (await s.packs.findVersion(ALL_TENANTS, ref))!;
        if (existing.sha256 === sha256) return { version: existing, created: false };
        const why = existing.status === 'draft' ? '' : ` and is ${existing.status} (immutable)`;
        throw new ConflictError(`${describe(ref)} already exists with different content${why}; submit a new version`);
      }
      await s.packs.recordDecision(ref, {
        decision: 'submitted',
        actor: auth.username,
        fromState: null,
        toState: 'draft',
        notes: null,
      });
      const rules = Array.isArray(pack.rules) ? pack.rules.length : 0;
      await s.outbox.append(
        auditEvent(caller, {
          tenantId,
          type: RULEPACK_EVENTS.submitted,
          actor: auth.username,
          data: { pack_id: packId, version, sha256, rules, status: 'draft' },
        }),
      );
      return { version: (await s.packs.findVersion(ALL_TENANTS, ref))!, created: true };
    });
  }

  // ------------------------------------------------------------------ lifecycle

  /** draft → review. */
  async requestReview(caller: Caller, ref: PackRef): Promise<RulePackVersionRecord> {
    requireAuth(caller); // a decision names its reviewer: a token whatever the port's mode
    const current = await this.visible(caller, ref, 'rulepack.submit_for_review');
    if (!mayRequestReview(caller.auth!, current))
      throw new ForbiddenError('Only the author or a writer of the owner tenant may submit a pack for review');
    return this.move(caller, current, 'review_requested', { from: 'draft', to: 'review' }, null);
  }

  /** review → certified, signed with the active key. */
  async certify(caller: Caller, ref: PackRef, notes?: string | null): Promise<RulePackVersionRecord> {
    requireAuth(caller); // a decision names its reviewer: a token whatever the port's mode
    const current = await this.visible(caller, ref, 'rulepack.certify');
    this.assertMayDecide(caller, current, 'certify');
    this.access.requireMfa(caller, 'certify a rule pack');
    const note = checkNotes(notes, false);
    this.assertState(current, 'review', 'certify');
    const key = await this.keys.current();
    const signature = signPack(current.pack, key.privateKey);
    const auth = caller.auth!;
    return this.move(
      caller,
      current,
      'certified',
      {
        from: 'review',
        to: 'certified',
        reviewer: auth.username,
        certifiedAt: new Date(),
        signature,
        keyId: key.kid,
      },
      note,
    );
  }

  /** review → draft, with the reviewer's notes. */
  async reject(caller: Caller, ref: PackRef, notes: string | null | undefined): Promise<RulePackVersionRecord> {
    requireAuth(caller); // a decision names its reviewer: a token whatever the port's mode
    const current = await this.visible(caller, ref, 'rulepack.reject');
    this.assertMayDecide(caller, current, 'reject');
    const note = checkNotes(notes, true);
    return this.move(
      caller,
      current,
      'rejected',
      { from: 'review', to: 'draft', reviewer: caller.auth!.username },
      note,
    );
  }

  /** certified → deprecated, optionally naming a certified replacement. */
  async deprecate(caller: Caller, ref: PackRef, input: DeprecateInput = {}): Promise<RulePackVersionRecord> {
    requireAuth(caller); // a decision names its reviewer: a token whatever the port's mode
    const current = await this.visible(caller, ref, 'rulepack.deprecate');
    this.assertMayDecide(caller, current, 'deprecate');
    const note = checkNotes(input.notes, false);
    const replacement = await this.replacementOf(ref, input);
    return this.move(
      caller,
      current,
      'deprecated',
      { from: 'certified', to: 'deprecated', deprecatedAt: new Date(), replacement },
      note,
    );
  }

  private async replacementOf(ref: PackRef, input: DeprecateInput): Promise<PackRef | null> {
    const hasVersion = input.replacementVersion !== undefined && input.replacementVersion !== null;
    const hasRef = input.replacement !== undefined && input.replacement !== null;
    if (hasVersion && hasRef)
      throw InputError.of(['replacement'], 'Send either replacement_version or replacement, not both');
    if (!hasVersion && !hasRef) return null;
    const field = hasVersion ? 'replacementVersion' : 'replacement';
    const target: PackRef = hasVersion
      ? { packId: ref.packId, version: input.replacementVersion! }
      : input.replacement!;
    if (
      typeof target.packId !== 'string' ||
      typeof target.version !== 'string' ||
      unstorableText(target.packId + target.version)
    ) {
      throw InputError.of([field], 'Input should name a pack id and version');
    }
    if (target.packId === ref.packId && target.version === ref.version)
      throw InputError.of([field], 'A version cannot replace itself');
    // Certified versions are every tenant's, so looking them up needs no tenant.
    const found = await this.read(() => this.stores.packs.findVersion(ALL_TENANTS, target));
    if (!found || found.status !== 'certified') {
      throw InputError.of(
        [field],
        `The replacement ${describe(target)} must exist and be certified${found ? ` (it is ${found.status})` : ''}`,
      );
    }
    return target;
  }

  private assertMayDecide(caller: Caller, v: RulePackVersionRecord, what: string): void {
    const verdict = mayDecide(caller.auth!, v);
    if (verdict === 'author') throw new ForbiddenError(`The author of a pack may not ${what} it`);
    if (verdict === 'role')
      throw new ForbiddenError(`Role 'admin' or 'reviewer' in tenant '${v.ownerTenant}' required to ${what} a pack`);
  }

  private assertState(v: { status: RulePackStatus } & PackRef, expected: RulePackStatus, what: string): void {
    if (v.status !== expected) throw new ConflictError(`${describe(v)} is '${v.status}'; ${what} needs '${expected}'`);
  }

  /** Applies one transition with its decision record, audit event and notice in one transaction. */
  private async move(
    caller: Caller,
    current: RulePackVersionRecord,
    decision: DecisionKind,
    t: Transition,
    notes: string | null,
  ): Promise<RulePackVersionRecord> {
    const what = {
      review_requested: 'submit for review',
      certified: 'certify',
      rejected: 'reject',
      deprecated: 'deprecate',
      submitted: 'submit',
    }[decision];
    this.assertState(current, t.from, what);
    const auth = caller.auth!;
    if (isPlatformOperator(auth) && auth.tenantId !== current.ownerTenant) {
      await this.access.resolve(caller, current.ownerTenant, ['tenantId'], `rulepack.${decision}`);
    }
    const ref = { packId: current.packId, version: current.version };
    const updated = await this.stores.transaction(async (s: RulePackStores) => {
      const moved = await s.packs.transition(ref, t);
      if (!moved) {
        // Someone else moved it first.
        const now = await s.packs.findVersion(ALL_TENANTS, ref);
        throw new ConflictError(`${describe(ref)} is '${now?.status ?? 'gone'}'; ${what} needs '${t.from}'`);
      }
      await s.packs.recordDecision(ref, { decision, actor: auth.username, fromState: t.from, toState: t.to, notes });
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: moved.ownerTenant,
          type: AUDIT_TYPE[decision],
          actor: auth.username,
          data: auditData(moved, decision, notes),
        }),
      );
      const contract: RulePackNoticeContract | null =
        decision === 'certified' ? RULEPACK_CERTIFIED : decision === 'deprecated' ? RULEPACK_DEPRECATED : null;
      if (contract) {
        await s.notices.append(contract, rulePackNotice(moved), {
          tenantId: moved.ownerTenant,
          subject: `${moved.packId}@${moved.version}`,
          correlationId: caller.correlationId,
        });
      }
      return moved;
    });
    if (decision === 'certified' || decision === 'deprecated') this.onCommitted();
    return updated;
  }

  // ------------------------------------------------------------------ reads

  async get(caller: Caller, ref: PackRef): Promise<RulePackVersionRecord> {
    return this.visible(caller, ref, 'rulepack.get');
  }

  /**
   * Several versions in one read (entity references), each as get() would answer it: null where
   * get() is NOT_FOUND, the error where get() fails (an operator refused another tenant's draft).
   */
  async getMany(caller: Caller, refs: readonly PackRef[]): Promise<(RulePackVersionRecord | null | Error)[]> {
    const { scope } = await this.viewer(caller, 'rulepack.get');
    const found = await this.read(() => this.stores.packs.findVersions(scope, refs));
    const byRef = new Map(found.map((v) => [refKey(v), v]));
    const auth = caller.auth;
    return Promise.all(
      refs.map(async (ref) => {
        const v = byRef.get(refKey(ref));
        if (!v) return null;
        if (
          auth &&
          isPlatformOperator(auth) &&
          auth.tenantId !== v.ownerTenant &&
          !PUBLISHED_STATUSES.includes(v.status)
        ) {
          try {
            await this.access.resolve(caller, v.ownerTenant, ['tenantId'], 'rulepack.get');
          } catch (err) {
            return err as Error;
          }
        }
        return v;
      }),
    );
  }

  /**
   * The newest certified version by semantic version. None certified: 404 when nothing is, 409
   * when every published version is deprecated (the pack exists but must not be used; the detail
   * names the replacement when one was given).
   */
  async latestCertified(caller: Caller, packId: string): Promise<RulePackVersionRecord> {
    const { scope } = await this.viewer(caller, 'rulepack.get');
    const versions = await this.read(() => this.stores.packs.listVersions(scope, packId));
    const certified = newestFirst(versions.filter((v) => v.status === 'certified'));
    if (certified[0]) return certified[0];
    const deprecated = newestFirst(versions.filter((v) => v.status === 'deprecated'))[0];
    if (deprecated) {
      const instead = deprecated.replacement
        ? `; use '${deprecated.replacement.packId}' version '${deprecated.replacement.version}'`
        : '';
      throw new ConflictError(
        `Rule pack '${packId}' has no certified version: '${deprecated.version}' is deprecated${instead}`,
      );
    }
    throw new NotFoundError(`Rule pack '${packId}' has no certified version`);
  }

  /** Every version the caller may see, newest first; 404 when there is none. */
  async versions(caller: Caller, packId: string): Promise<RulePackVersionRecord[]> {
    const { scope } = await this.viewer(caller, 'rulepack.versions');
    const versions = await this.read(() => this.stores.packs.listVersions(scope, packId));
    if (versions.length === 0) throw new NotFoundError(`Rule pack '${packId}' not found`);
    return newestFirst(versions);
  }

  /** The caller's tenant's drafts and reviews plus every tenant's certified and deprecated versions, by (pack id, version). */
  async list(caller: Caller, q: { status?: string; first?: number; after?: string }): Promise<RulePackPage> {
    const { tenantId } = await this.viewer(caller, 'rulepack.list');
    if (q.status !== undefined && !(RULEPACK_STATUSES as readonly string[]).includes(q.status)) {
      throw InputError.of(['status'], `Input should be ${RULEPACK_STATUSES.map((s) => `'${s}'`).join(', ')}`, 'enum');
    }
    const first = q.first ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE)
      throw InputError.of(['first'], `Input should be between 1 and ${MAX_PAGE_SIZE}`);
    const after = q.after !== undefined ? decodePosition(q.after, 'after') : undefined;
    // Listing shows one tenant's unpublished work, even to an operator (who names the tenant with X-Tenant-ID).
    const rows = await this.read(() =>
      this.stores.packs.list({
        viewer: tenantId,
        status: q.status as RulePackStatus | undefined,
        after,
        limit: first + 1,
      }),
    );
    const versions = rows.slice(0, first);
    const last = versions[versions.length - 1];
    return { versions, hasNextPage: rows.length > first, endCursor: last ? encodePosition(last) : null };
  }

  /** Who moved a version and why, oldest first. */
  async decisions(caller: Caller, ref: PackRef): Promise<DecisionRecord[]> {
    await this.visible(caller, ref, 'rulepack.decisions');
    return this.read(() => this.stores.packs.decisions(ref));
  }

  /** The published signing keys (public: no caller). */
  keySet() {
    return this.read(() => this.keys.keySet());
  }
}

const AUDIT_TYPE: Record<DecisionKind, string> = {
  submitted: RULEPACK_EVENTS.submitted,
  review_requested: RULEPACK_EVENTS.reviewRequested,
  certified: RULEPACK_EVENTS.certified,
  rejected: RULEPACK_EVENTS.rejected,
  deprecated: RULEPACK_EVENTS.deprecated,
};

function auditData(v: RulePackVersionRecord, decision: DecisionKind, notes: string | null): Record<string, unknown> {
  const data: Record<string, unknown> = { pack_id: v.packId, version: v.version, status: v.status };
  if (decision === 'certified') Object.assign(data, { sha256: v.sha256, key_id: v.keyId });
  if (decision === 'deprecated')
    data.replacement = v.replacement ? { pack_id: v.replacement.packId, version: v.replacement.version } : null;
  if (notes !== null) data.notes = notes;
  return data;
}

/** Semantic-version order, newest first (a version the registry stored is always valid semver). */
function newestFirst(versions: RulePackVersionRecord[]): RulePackVersionRecord[] {
  return [...versions].sort((a, b) => semver.rcompare(a.version, b.version));
}

/** A version's identity as one map key. */
function refKey(ref: PackRef): string {
  return JSON.stringify([ref.packId, ref.version]);
}
