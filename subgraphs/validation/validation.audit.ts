// The record of every run: one `rule_execution` event in the tenant's ledger through the outbox
// (spec 03's shape plus the run's provenance), and the `compliance.rule_execution` notice, written
// in the same transaction (the notice outbox) and published by the service's notice relay. Neither
// carries anything of the payload: ids, counts and SHA-256 digests only.
import type { Caller } from '../../platform/auth/caller';
import { COMPLIANCE_RULE_EXECUTION, type ComplianceRuleExecution } from '../../platform/contracts/compliance.events';
import { pendingNotice, type AuditedNoticeWriter, type PendingNotice } from '../../platform/outbox/notice.writer';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import type { RuleExecutionData } from './validation.types';

export const RULE_EXECUTION_EVENT = 'rule_execution';

/** The subject of a run's notice: its pack, then the run (the audit event's idempotency key, unique per run). */
export const runSubject = (packId: string, runId: string): string => `rulepack/${packId}/runs/${runId}`;

export class RunAudit {
  constructor(
    private readonly outbox: AuditedNoticeWriter,
    /** Wakes the notice relay once a run's notice is committed. */
    private readonly onCommitted: () => void = () => {},
    /** Hands the committed notice to the compliance service's client (PLATFORM_COMPLIANCE_URL; best effort). */
    private readonly forward: (notice: PendingNotice) => void = () => {},
  ) {}

  /**
   * The ledger event and the compliance notice are committed before the run answers (a run whose
   * record cannot be stored fails with 503), together: neither exists without the other.
   */
  async record(caller: Caller, tenantId: string, data: RuleExecutionData): Promise<void> {
    const actor = caller.auth?.username ?? null;
    // Typed by the contract (platform/contracts/compliance.events.ts): a field the domain's
    // RuleExecutionData drops or retypes fails to compile here. Each field is named rather than
    // spread from `data`: V8 (Node 20) built `{ ...data, tenant_id, ... }` on a slow path, ~10 us a
    // run, more than the rest of the notice (docs/benchmarks.md, branch val, 2026-11-29).
    const event: ComplianceRuleExecution = {
      rulepack_id: data.rulepack_id,
      rules_executed: data.rules_executed,
      violations: data.violations,
      result: data.result,
      input_sha256: data.input_sha256,
      pack_sha256: data.pack_sha256,
      pack_source: data.pack_source,
      rule_pack_version: data.rule_pack_version,
      validation_type: data.validation_type,
      payload_format: data.payload_format,
      strict_mode: data.strict_mode,
      records: data.records,
      tenant_id: tenantId,
      user_id: actor,
      correlation_id: caller.correlationId,
      occurred_at: new Date().toISOString(),
    };
    const audit = auditEvent(caller, {
      tenantId,
      type: RULE_EXECUTION_EVENT,
      actor,
      data,
      description: `Rule pack ${data.rulepack_id}${data.rule_pack_version ? ` ${data.rule_pack_version}` : ''} ${data.result}`,
    });
    // The subject is the run itself: runs are independent facts, and the subject is the key that
    // relays and durable consumers keep in order. Keyed by the pack alone, every run of a busy pack
    // waited for the one before it, one bus round trip each (the relay fell behind from ~100
    // runs/s under load, docs/benchmarks.md, branch val round 2).
    const notice = pendingNotice('validation', COMPLIANCE_RULE_EXECUTION, event, {
      tenantId,
      subject: runSubject(data.rulepack_id, audit.idempotencyKey),
      correlationId: caller.correlationId,
    });
    await this.outbox.append(audit, notice);
    this.onCommitted();
    this.forward(notice);
  }
}
