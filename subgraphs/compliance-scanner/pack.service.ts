// Scanner packs: submitted as drafts, certified by a second person of the tenant (admin or
// reviewer, never the author), and signed at certification exactly as rule packs and mapping
// packs are (Ed25519 over the RFC 8785 canonical JSON, subgraphs/rulepack-registry/pack-signature.ts).
// A scan runs only a certified pack whose signature verifies against the service's key set, so
// a row changed in the database after certification is refused, not run.
//
// Why not the packs registry: its kinds are a closed `workflow | rule` with a workflow-pack
// schema, and its ids are one namespace across tenants; a scanner pack names the tenant's
// controls and its rules must compile here (CEL cost). Same choice as compliance's mapping packs
// (docs/decisions.md).
import semver from 'semver';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { canonicalPackBytes, packSha256, signPack, verifyPack } from '../rulepack-registry/pack-signature';
import { mayDecide } from '../rulepack-registry/rulepack-registry.policy';
import type { SigningKeys } from '../rulepack-registry/signing-keys.service';
import { scannerPackStore } from './pack.store';
import { SCANNER_PACK_CERTIFIED_EVENT, SCANNER_PACK_SUBMITTED_EVENT } from './compliance-scanner.audit';
import { assertMayRead, assertMayWrite } from './scanner.policy';
import { compilePack, type CompiledPack } from './scanner-pack';
import type { ScannerPack, ScannerPackStatus } from './scanner.types';

export const SERVICE = 'compliance-scanner';
const MAX_PACK_BYTES = 512 * 1024;

export class PackService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly keys: SigningKeys,
    private readonly access: TenantAccess,
    private readonly requireToken: boolean,
  ) {}

  /** A draft; the same content again answers the stored version (created false); other content under its version is 409. */
  async submit(
    caller: Caller,
    input: { pack: unknown; tenantId?: string },
  ): Promise<{ pack: ScannerPack; created: boolean }> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.pack.submit');
    let canonical: string;
    try {
      canonical = canonicalPackBytes(input.pack).toString('utf8');
    } catch {
      throw InputError.of(['pack'], 'The pack is not serialisable as JSON');
    }
    if (canonical.length > MAX_PACK_BYTES)
      throw InputError.of(['pack'], `The pack is larger than ${MAX_PACK_BYTES} bytes`);
    const { document } = compilePack(input.pack);
    const { pack_id: packId, version } = document.metadata;
    const sha256 = packSha256(document);
    return this.sql.transaction(async (tx) => {
      const inserted = await scannerPackStore.insert(tx, tenantId, {
        packId,
        version,
        sha256,
        author: auth.username,
        canonical,
      });
      const stored = (await scannerPackStore.get(tx, tenantId, packId, version))!;
      if (!inserted) {
        if (stored.sha256 !== sha256)
          throw new ConflictError(`Scanner pack ${packId} ${version} exists with other content: submit a new version`);
        return { pack: stored, created: false };
      }
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_PACK_SUBMITTED_EVENT,
          actor: auth.username,
          data: { pack_id: packId, version, sha256, rules: document.rules.length },
        }),
      );
      return { pack: stored, created: true };
    });
  }

  async certify(caller: Caller, input: { packId: string; version: string; tenantId?: string }): Promise<ScannerPack> {
    assertMayWrite(caller);
    const auth = requireAuth(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.pack.certify');
    const key = await this.keys.current();
    return this.sql.transaction(async (tx) => {
      const pack = await scannerPackStore.get(tx, tenantId, input.packId, input.version);
      if (!pack) throw new NotFoundError(`Scanner pack ${input.packId} ${input.version} not found`);
      const verdict = mayDecide(auth, { ownerTenant: pack.tenantId, author: pack.author });
      if (verdict === 'author') throw new ForbiddenError('The author of a scanner pack cannot certify it');
      if (verdict === 'role') throw new ForbiddenError('Certifying a scanner pack needs the admin or reviewer role');
      if (pack.status !== 'draft')
        throw new ConflictError(`Scanner pack ${input.packId} ${input.version} is already ${pack.status}`);
      const signature = signPack(pack.pack, key.privateKey);
      if (!(await scannerPackStore.certify(tx, tenantId, pack.packId, pack.version, auth.username, signature, key.kid)))
        throw new ConflictError(
          `Scanner pack ${input.packId} ${input.version} was certified by someone else meanwhile`,
        );
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_PACK_CERTIFIED_EVENT,
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
      return (await scannerPackStore.get(tx, tenantId, pack.packId, pack.version))!;
    });
  }

  async get(caller: Caller, input: { packId: string; version: string; tenantId?: string }): Promise<ScannerPack> {
    assertMayRead(caller, this.requireToken);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.pack.read');
    const pack = await scannerPackStore.get(this.sql, tenantId, input.packId, input.version);
    if (!pack) throw new NotFoundError(`Scanner pack ${input.packId} ${input.version} not found`);
    return pack;
  }

  async list(caller: Caller, input: { status?: ScannerPackStatus; tenantId?: string } = {}): Promise<ScannerPack[]> {
    assertMayRead(caller, this.requireToken);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.pack.list');
    return scannerPackStore.list(this.sql, tenantId, input.status);
  }

  /** The certified pack a scan runs, its signature checked against every key the service has used. */
  async forScan(
    tenantId: string,
    packId: string,
    version: string | undefined,
  ): Promise<{ pack: ScannerPack; compiled: CompiledPack }> {
    const candidates = version
      ? [await scannerPackStore.get(this.sql, tenantId, packId, version)]
      : (await scannerPackStore.list(this.sql, tenantId, 'certified'))
          .filter((p) => p.packId === packId)
          .sort((a, b) => semver.rcompare(a.version, b.version));
    const pack = candidates[0];
    if (!pack) throw new NotFoundError(`Scanner pack ${packId}${version ? ` ${version}` : ''} not found`);
    if (pack.status !== 'certified' || !pack.signature)
      throw new ConflictError(
        `Scanner pack ${packId} ${pack.version} is a draft: a second person must certify it first`,
      );
    const { keys } = await this.keys.keySet();
    const key = keys.find((k) => k.kid === pack.keyId);
    if (!key || !verifyPack(pack.pack, pack.signature, key))
      throw new ConflictError(`Scanner pack ${packId} ${pack.version} does not match its signature: it will not run`);
    return { pack, compiled: compilePack(pack.pack) };
  }

  keySet() {
    return this.keys.keySet();
  }

  ensureSigningKey(): Promise<void> {
    return this.keys.ensureActive();
  }
}
