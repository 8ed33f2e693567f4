// Erasure of a data subject by crypto-shredding: the subject's keys in the tenant are destroyed
// (platform/vault), so every value sealed under them, wherever it was copied, reads `[erased]`
// from then on. Nothing else is rewritten: rows, content hashes and ledger chains stay as they
// were, which is why every chain and Merkle proof still verifies (the ledger never held the
// subject's PII in clear; docs/compliance.md, "Erasure").
//
// The rules: the subject must be one the tenant holds data about (else 404, which is also what
// another tenant's subject gets); an active legal hold that covers the subject (it names the
// subject, or names no subject at all) refuses the erasure with 409 and changes nothing. The keys,
// the hold records' subject ids, the erasure record and its audit event commit together.
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { activeHoldsOf, forgetHoldSubject } from '../../platform/retention/retention.store';
import type { SubjectVault } from '../../platform/vault/subject-vault';
import { assertMayRead } from './compliance.policy';
import { erasuresOf, insertErasure, type ErasureRecord } from './erasure.store';
import { SUBJECT_ERASED_EVENT } from './compliance.audit';
import { assertMayGovernRetention } from './retention.policy';
import { assertSubjectId } from './retention.service';

const REASON_MAX = 2000;

export class ErasureService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly vault: SubjectVault,
  ) {}

  async erase(
    caller: Caller,
    input: { subjectId: string; reason?: string; tenantId?: string },
  ): Promise<ErasureRecord> {
    assertSubjectId(input.subjectId);
    const reason = input.reason?.trim() || null;
    if (reason !== null && reason.length > REASON_MAX)
      throw InputError.of(['reason'], `String should have at most ${REASON_MAX} characters`, 'string_too_long');
    assertMayGovernRetention(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.erasure.request');
    const actor = caller.auth?.username ?? null;
    const subjectRef = this.vault.subjectRef(tenantId, input.subjectId);
    return this.sql.transaction(async (tx) => {
      if (!(await this.vault.knows(tx, tenantId, subjectRef))) throw new NotFoundError('Subject not found');
      const holding = (await activeHoldsOf(tx, [tenantId])).filter(
        (h) => h.subjectRef === subjectRef || h.subjectRef === null,
      );
      if (holding.length > 0)
        throw new ConflictError(
          `A legal hold covers this subject (${holding.map((h) => h.id).join(', ')}); release it before erasing`,
        );
      const keysDestroyed = await this.vault.destroy(tx, tenantId, subjectRef);
      await forgetHoldSubject(tx, tenantId, subjectRef);
      const record = await insertErasure(tx, tenantId, { subjectRef, keysDestroyed, reason }, actor);
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: SUBJECT_ERASED_EVENT,
          actor,
          data: { erasure_id: record.id, subject_ref: subjectRef, keys_destroyed: keysDestroyed },
          description: 'Data subject erased (keys destroyed)',
        }),
      );
      return record;
    });
  }

  async erasures(caller: Caller, requestedTenant?: string): Promise<ErasureRecord[]> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenantId'], 'compliance.erasure.list');
    return erasuresOf(this.sql, tenantId);
  }
}
