// Retention policies and legal holds of a tenant. A policy says how many days a record type is
// kept; it is refused (422) below the type's legal minimum, the platform's configuration. A hold
// stops purges of what it covers (a record type, a subject, or both; neither: everything) and the
// erasure of the subjects it covers, until released. Every change commits with its audit event;
// the owning services read policies and holds at each sweep (platform/retention).
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import {
  deletePolicy,
  holdOf,
  holdsOf,
  insertHold,
  policiesOf,
  releaseHold,
  upsertPolicy,
} from '../../platform/retention/retention.store';
import {
  isRecordType,
  MAX_RETAIN_DAYS,
  RECORD_TYPES,
  type LegalHold,
  type LegalMinimums,
  type RecordType,
  type RetentionPolicy,
} from '../../platform/retention/retention.types';
import type { SubjectVault } from '../../platform/vault/subject-vault';
import { assertMayRead } from './compliance.policy';
import {
  LEGAL_HOLD_PLACED_EVENT,
  LEGAL_HOLD_RELEASED_EVENT,
  RETENTION_POLICY_REMOVED_EVENT,
  RETENTION_POLICY_SET_EVENT,
} from './compliance.audit';
import { assertMayGovernRetention } from './retention.policy';

/** One record type as a tenant sees it: its legal minimum and the tenant's policy, if any. */
export interface RetentionRule {
  recordType: RecordType;
  legalMinimumDays: number;
  policy: RetentionPolicy | null;
}

export interface HoldInput {
  recordType?: string | null;
  subjectId?: string | null;
  reason: string;
  tenantId?: string;
}

const SUBJECT_MAX = 255;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REASON_MAX = 2000;

export function assertRecordType(value: string, field: string): RecordType {
  if (!isRecordType(value))
    throw InputError.of([field], `Input should be ${RECORD_TYPES.map((t) => `'${t}'`).join(', ')}`, 'enum');
  return value;
}

export function assertSubjectId(value: string, field = 'subjectId'): void {
  if (value.length === 0 || value.length > SUBJECT_MAX)
    throw InputError.of([field], `String should have 1 to ${SUBJECT_MAX} characters`, 'string_length');
}

export class RetentionService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly vault: SubjectVault,
    private readonly minimums: LegalMinimums,
  ) {}

  private async tenant(caller: Caller, requested: string | undefined, action: string, write: boolean) {
    if (write) assertMayGovernRetention(caller);
    else assertMayRead(caller);
    return this.access.resolve(caller, requested, ['tenantId'], `compliance.${action}`);
  }

  /** Every record type with its legal minimum and the tenant's policy. */
  async rules(caller: Caller, requestedTenant?: string): Promise<RetentionRule[]> {
    const tenantId = await this.tenant(caller, requestedTenant, 'retention.list', false);
    const policies = new Map((await policiesOf(this.sql, tenantId)).map((p) => [p.recordType, p]));
    return RECORD_TYPES.map((t) => ({
      recordType: t,
      legalMinimumDays: this.minimums[t],
      policy: policies.get(t) ?? null,
    }));
  }

  async setPolicy(
    caller: Caller,
    input: { recordType: string; retainDays: number; tenantId?: string },
  ): Promise<RetentionRule> {
    const recordType = assertRecordType(input.recordType, 'recordType');
    const minimum = this.minimums[recordType];
    if (!Number.isInteger(input.retainDays) || input.retainDays < minimum)
      throw InputError.of(
        ['retainDays'],
        `Input should be greater than or equal to ${minimum} (the legal minimum of ${recordType})`,
        'greater_than_equal',
      );
    if (input.retainDays > MAX_RETAIN_DAYS)
      throw InputError.of(
        ['retainDays'],
        `Input should be less than or equal to ${MAX_RETAIN_DAYS}`,
        'less_than_equal',
      );
    const tenantId = await this.tenant(caller, input.tenantId, 'retention.set', true);
    const actor = caller.auth?.username ?? null;
    const policy = await this.sql.transaction(async (tx) => {
      const saved = await upsertPolicy(tx, tenantId, recordType, input.retainDays, actor);
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: RETENTION_POLICY_SET_EVENT,
          actor,
          data: { record_type: recordType, retain_days: input.retainDays, legal_minimum_days: minimum },
          description: `Retention of ${recordType} set to ${input.retainDays} days`,
        }),
      );
      return saved;
    });
    return { recordType, legalMinimumDays: minimum, policy };
  }

  /** Removes the tenant's policy of a type (its records are then kept until a policy says otherwise). */
  async removePolicy(caller: Caller, input: { recordType: string; tenantId?: string }): Promise<RetentionRule> {
    const recordType = assertRecordType(input.recordType, 'recordType');
    const tenantId = await this.tenant(caller, input.tenantId, 'retention.remove', true);
    const actor = caller.auth?.username ?? null;
    await this.sql.transaction(async (tx) => {
      if (!(await deletePolicy(tx, tenantId, recordType)))
        throw new NotFoundError(`No retention policy for ${recordType}`);
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: RETENTION_POLICY_REMOVED_EVENT,
          actor,
          data: { record_type: recordType },
          description: `Retention policy of ${recordType} removed`,
        }),
      );
    });
    return { recordType, legalMinimumDays: this.minimums[recordType], policy: null };
  }

  async holds(caller: Caller, input: { activeOnly?: boolean; tenantId?: string } = {}): Promise<LegalHold[]> {
    const tenantId = await this.tenant(caller, input.tenantId, 'holds.list', false);
    return holdsOf(this.sql, tenantId, input.activeOnly ?? false);
  }

  async hold(caller: Caller, id: string, requestedTenant?: string): Promise<LegalHold> {
    const tenantId = await this.tenant(caller, requestedTenant, 'holds.get', false);
    const found = UUID.test(id) ? await holdOf(this.sql, tenantId, id) : null;
    if (!found) throw new NotFoundError('Legal hold not found');
    return found;
  }

  /**
   * A hold on a record type, a subject, or both. A subject must be one the tenant holds data about
   * (a subject key): another tenant's subject is 404, as if it did not exist.
   */
  async placeHold(caller: Caller, input: HoldInput): Promise<LegalHold> {
    const recordType =
      input.recordType === undefined || input.recordType === null
        ? null
        : assertRecordType(input.recordType, 'recordType');
    const subjectId = input.subjectId ?? null;
    if (subjectId !== null) assertSubjectId(subjectId);
    const reason = input.reason.trim();
    if (reason.length === 0 || reason.length > REASON_MAX)
      throw InputError.of(['reason'], `String should have 1 to ${REASON_MAX} characters`, 'string_length');
    const tenantId = await this.tenant(caller, input.tenantId, 'holds.place', true);
    const actor = caller.auth?.username ?? null;
    return this.sql.transaction(async (tx) => {
      const subjectRef = subjectId === null ? null : this.vault.subjectRef(tenantId, subjectId);
      if (subjectRef !== null && !(await this.vault.knows(tx, tenantId, subjectRef)))
        throw new NotFoundError('Subject not found');
      const hold = await insertHold(tx, tenantId, { recordType, subjectId, subjectRef, reason }, actor);
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: LEGAL_HOLD_PLACED_EVENT,
          actor,
          data: { hold_id: hold.id, record_type: recordType, subject_ref: subjectRef },
          description: 'Legal hold placed',
        }),
      );
      return hold;
    });
  }

  async releaseHold(caller: Caller, id: string, requestedTenant?: string): Promise<LegalHold> {
    const tenantId = await this.tenant(caller, requestedTenant, 'holds.release', true);
    const actor = caller.auth?.username ?? null;
    if (!UUID.test(id)) throw new NotFoundError('Legal hold not found');
    return this.sql.transaction(async (tx) => {
      const released = await releaseHold(tx, tenantId, id, actor);
      if (!released) {
        if (await holdOf(tx, tenantId, id)) throw new ConflictError('Legal hold was released before');
        throw new NotFoundError('Legal hold not found');
      }
      await sqlOutboxWriter(tx, 'compliance').append(
        auditEvent(caller, {
          tenantId,
          type: LEGAL_HOLD_RELEASED_EVENT,
          actor,
          data: { hold_id: id, record_type: released.recordType, subject_ref: released.subjectRef },
          description: 'Legal hold released',
        }),
      );
      return released;
    });
  }
}
