// Mapping packs: which controls each kind of compliance event is evidence for. Registered and
// signed as rule packs are (docs/rulepack-registry.md): a draft is submitted, a second person of
// the tenant (admin or reviewer, never the author) certifies it, and the certification signs the
// RFC 8785 canonical JSON with Ed25519 (subgraphs/rulepack-registry/pack-signature.ts, the same
// bytes and key ids); the public keys are a JWK Set. Only certified packs drive the intake.
//
// Why not the packs registry: it holds workflow packs and pointers to rule packs (its kind is a
// closed `workflow | rule`, its artifacts a workflow-pack schema, its ids one namespace across
// tenants), while a mapping pack names controls that exist only in the submitting tenant's
// imported frameworks. Checking those needs this service's tables, so the pack lives here.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { MappingPackSchema } from '../../platform/contracts/compliance.mapping-pack';
import type { SqlExecutor } from '../../platform/db/sql';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  type InputIssue,
} from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { canonicalPackBytes, packSha256, signPack, type PublicSigningJwk } from '../rulepack-registry/pack-signature';
import { mayDecide } from '../rulepack-registry/rulepack-registry.policy';
import type { SigningKeys } from '../rulepack-registry/signing-keys.service';
import type { CatalogStore } from './catalog.store';
import { MAPPING_PACK_CERTIFIED_EVENT, MAPPING_PACK_SUBMITTED_EVENT } from './compliance.audit';
import { assertMayRead, assertMayWrite } from './compliance.policy';
import type { ControlRef, MappingPack, MappingPackContent, MappingPackStatus } from './compliance.types';
import { assertDocumentLimits } from './oscal/document-limits';
import type { MappingPackStore } from './mapping-pack.store';

// TypeBox's own checker: the contract's `semver` format lives in TypeBox's format registry.
const packChecker = TypeCompiler.Compile(MappingPackSchema);

function schemaIssues(pack: unknown): InputIssue[] {
  const first = packChecker.Check(pack) ? undefined : packChecker.Errors(pack).First();
  if (!first) return [];
  const path = first.path
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  return [{ loc: ['pack', ...path], msg: first.message, type: 'value_error' }];
}

export class MappingPackService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly store: MappingPackStore,
    private readonly catalog: CatalogStore,
    private readonly keys: SigningKeys,
    private readonly access: TenantAccess,
  ) {}

  /** A draft; the same content again answers the stored version (created false), other content under its version is 409. */
  async submit(
    caller: Caller,
    input: { pack: unknown; tenantId?: string },
  ): Promise<{ pack: MappingPack; created: boolean }> {
    assertMayWrite(caller);
    const auth = requireAuth(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.mapping_pack.submit');
    assertDocumentLimits(input.pack, 'pack');
    const issues = schemaIssues(input.pack);
    if (issues.length > 0) throw new InputError(issues);
    const pack = input.pack as MappingPackContent;
    const { pack_id: packId, version } = pack.metadata;
    const sha256 = packSha256(pack);
    return this.sql.transaction(async (tx) => {
      await this.assertControlsExist(tx, tenantId, pack);
      const inserted = await this.store.insert(tx, tenantId, {
        packId,
        version,
        sha256,
        author: auth.username,
        canonical: canonicalPackBytes(pack).toString('utf8'),
      });
      const stored = (await this.store.get(tx, tenantId, packId, version))!;
      if (!inserted) {
        if (stored.sha256 !== sha256)
          throw new ConflictError(`Mapping pack ${packId} ${version} exists with other content; submit a new version`);
        return { pack: stored, created: false };
      }
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: MAPPING_PACK_SUBMITTED_EVENT,
          actor: auth.username,
          data: { pack_id: packId, version, sha256 },
        }),
      );
      return { pack: stored, created: true };
    });
  }

  /** Every control a pack names must be one of the tenant's: another tenant's, or none, is a 422 naming it. */
  private async assertControlsExist(
    tx: Parameters<CatalogStore['existing']>[0],
    tenantId: string,
    pack: MappingPackContent,
  ) {
    const named: { ref: ControlRef; loc: (string | number)[] }[] = pack.mappings.flatMap((m, i) =>
      m.controls.map((c, k) => ({
        ref: { framework: c.framework, controlId: c.control_id },
        loc: ['pack', 'mappings', i, 'controls', k],
      })),
    );
    const found = await this.catalog.existing(
      tx,
      tenantId,
      named.map((n) => n.ref),
    );
    const has = new Set(found.map((r) => `${r.framework}\u0000${r.controlId}`));
    const missing = named.filter((n) => !has.has(`${n.ref.framework}\u0000${n.ref.controlId}`));
    if (missing.length > 0)
      throw new InputError(
        missing.slice(0, 20).map((n) => ({
          loc: n.loc,
          msg: `Control '${n.ref.controlId}' of framework '${n.ref.framework}' is not imported in this tenant`,
          type: 'dangling_reference',
        })),
      );
  }

  async certify(caller: Caller, input: { packId: string; version: string; tenantId?: string }): Promise<MappingPack> {
    assertMayWrite(caller);
    const auth = requireAuth(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.mapping_pack.certify');
    const key = await this.keys.current();
    return this.sql.transaction(async (tx) => {
      const pack = await this.store.get(tx, tenantId, input.packId, input.version);
      if (!pack) throw new NotFoundError(`Mapping pack ${input.packId} ${input.version} not found`);
      this.assertMayCertify(auth, pack);
      if (pack.status !== 'draft')
        throw new ConflictError(`Mapping pack ${input.packId} ${input.version} is already ${pack.status}`);
      const signature = signPack(pack.pack, key.privateKey);
      if (!(await this.store.certify(tx, tenantId, pack.packId, pack.version, auth.username, signature, key.kid)))
        throw new ConflictError(
          `Mapping pack ${input.packId} ${input.version} was certified by someone else meanwhile`,
        );
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: MAPPING_PACK_CERTIFIED_EVENT,
          actor: auth.username,
          data: {
            pack_id: pack.packId,
            version: pack.version,
            sha256: pack.sha256,
            key_id: key.kid,
            author: pack.author,
          },
        }),
      );
      return (await this.store.get(tx, tenantId, pack.packId, pack.version))!;
    });
  }

  private assertMayCertify(auth: AuthContext, pack: MappingPack): void {
    const verdict = mayDecide(auth, { ownerTenant: pack.tenantId, author: pack.author });
    if (verdict === 'author') throw new ForbiddenError('The author of a mapping pack cannot certify it');
    if (verdict === 'role') throw new ForbiddenError('Certifying a mapping pack needs the admin or reviewer role');
  }

  async list(caller: Caller, input: { status?: MappingPackStatus; tenantId?: string } = {}): Promise<MappingPack[]> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.mapping_pack.list');
    return this.store.list(this.sql, tenantId, input.status);
  }

  async get(caller: Caller, input: { packId: string; version: string; tenantId?: string }): Promise<MappingPack> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.mapping_pack.get');
    const pack = await this.store.get(this.sql, tenantId, input.packId, input.version);
    if (!pack) throw new NotFoundError(`Mapping pack ${input.packId} ${input.version} not found`);
    return pack;
  }

  /** The certified packs of a tenant: what the intake maps events with. */
  certified(tenantId: string): Promise<MappingPack[]> {
    return this.store.list(this.sql, tenantId, 'certified');
  }

  /** The public keys of every signing key ever used (public: a verifier needs no account). */
  keySet(): Promise<{ keys: PublicSigningJwk[] }> {
    return this.keys.keySet();
  }

  ensureSigningKey(): Promise<void> {
    return this.keys.ensureActive();
  }
}
