// The record of every run: one `rule_execution` event in the tenant's ledger through the outbox
// (spec 03's shape plus the run's provenance), and a compliance event on the bus. Neither carries
// anything of the payload: ids, counts and SHA-256 digests only.
import type { Caller } from '../../platform/auth/caller';
import type { EventBus } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import { auditEvent, type OutboxWriter } from '../../platform/outbox/outbox.writer';
import type { RuleExecutionData } from './validation.types';

export const RULE_EXECUTION_EVENT = 'rule_execution';
export const COMPLIANCE_TOPIC = 'compliance.rule_execution';

/** What the compliance service receives per run: the ledger event's data and where it belongs. */
export interface ComplianceRuleExecution extends RuleExecutionData {
  tenant_id: string;
  user_id: string | null;
  correlation_id: string;
  occurred_at: string;
}

export class RunAudit {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly logger: Logger,
  ) {}

  /**
   * The ledger event is written before the run answers (a run whose audit cannot be stored fails
   * with 503); the bus event is best effort, as the bus is at-most-once anyway.
   */
  async record(caller: Caller, tenantId: string, data: RuleExecutionData): Promise<void> {
    const actor = caller.auth?.username ?? null;
    await this.outbox.append(auditEvent(caller, {
      tenantId,
      type: RULE_EXECUTION_EVENT,
      actor,
      data,
      description: `Rule pack ${data.rulepack_id}${data.rule_pack_version ? ` ${data.rule_pack_version}` : ''} ${data.result}`,
    }));
    const event: ComplianceRuleExecution = { ...data, tenant_id: tenantId, user_id: actor, correlation_id: caller.correlationId, occurred_at: new Date().toISOString() };
    this.bus.publish(COMPLIANCE_TOPIC, event).catch((err) => this.logger.warn({ err: (err as Error).message }, `publishing ${COMPLIANCE_TOPIC} failed`));
  }
}
