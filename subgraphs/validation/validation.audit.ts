// The record of every run: one `rule_execution` event in the tenant's ledger through the outbox
// (spec 03's shape plus the run's provenance), and a compliance event on the bus. Neither carries
// anything of the payload: ids, counts and SHA-256 digests only.
import type { Caller } from '../../platform/auth/caller';
import { COMPLIANCE_RULE_EXECUTION, type ComplianceRuleExecution } from '../../platform/contracts/compliance.events';
import type { ContractBus } from '../../platform/events/contract-bus';
import type { Logger } from '../../platform/logging/logger';
import { auditEvent, type OutboxWriter } from '../../platform/outbox/outbox.writer';
import type { RuleExecutionData } from './validation.types';

export const RULE_EXECUTION_EVENT = 'rule_execution';

export class RunAudit {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly bus: Pick<ContractBus, 'publish'>,
    private readonly logger: Logger,
  ) {}

  /**
   * The ledger event is written before the run answers (a run whose audit cannot be stored fails
   * with 503); the bus event is best effort, as the bus is at-most-once anyway.
   */
  async record(caller: Caller, tenantId: string, data: RuleExecutionData): Promise<void> {
    const actor = caller.auth?.username ?? null;
    await this.outbox.append(
      auditEvent(caller, {
        tenantId,
        type: RULE_EXECUTION_EVENT,
        actor,
        data,
        description: `Rule pack ${data.rulepack_id}${data.rule_pack_version ? ` ${data.rule_pack_version}` : ''} ${data.result}`,
      }),
    );
    // Typed by the contract (platform/contracts/compliance.events.ts): a field the domain's
    // RuleExecutionData drops or retypes fails to compile here.
    const event: ComplianceRuleExecution = {
      ...data,
      tenant_id: tenantId,
      user_id: actor,
      correlation_id: caller.correlationId,
      occurred_at: new Date().toISOString(),
    };
    this.bus
      .publish(COMPLIANCE_RULE_EXECUTION, event)
      .catch((err) =>
        this.logger.warn({ err: (err as Error).message }, `publishing ${COMPLIANCE_RULE_EXECUTION.topic} failed`),
      );
  }
}
