// The intake's adapters: from the platform's compliance topics to `ingestComplianceEvent`.
// Until the durable consumer (platform/events/backbone/durable-consumer.ts) lands, the service
// subscribes through the contract bus; notices relayed from the notice outbox carry a CloudEvents
// id, which is the event id the intake deduplicates by (the outbox delivers at least once). A
// bare payload (no envelope) gets a content-derived id, so a repeat of it is still one event.
import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import {
  COMPLIANCE_RULE_EXECUTION,
  COMPLIANCE_WORKFLOW_EVENT,
  type ComplianceRuleExecution,
  type ComplianceWorkflowEvent,
} from '../../platform/contracts/compliance.events';
import type { ContractBus, NoticeMeta } from '../../platform/events/contract-bus';
import type { Unsubscribe } from '../../platform/events/event-bus';
import type { Logger } from '../../platform/logging/logger';
import type { ComplianceEventInput, IngestResult } from './compliance.types';

/** The ledger event types the spec names for these runs: what mapping packs usually match. */
export const RULE_EXECUTION_TYPE = 'rule_execution';
export const WORKFLOW_EXECUTION_TYPE = 'workflow_execution';

function idOf(topic: string, payload: unknown, meta?: Pick<NoticeMeta, 'id'>): string {
  if (meta?.id) return meta.id;
  return `sha256:${crypto
    .createHash('sha256')
    .update(`${topic}\n${canonicalize(payload) ?? ''}`)
    .digest('hex')}`;
}

export function ruleExecutionEvent(p: ComplianceRuleExecution, meta?: Pick<NoticeMeta, 'id'>): ComplianceEventInput {
  const topic = COMPLIANCE_RULE_EXECUTION.topic;
  return {
    id: idOf(topic, p, meta),
    tenantId: p.tenant_id,
    topic,
    types: [RULE_EXECUTION_TYPE, topic],
    rulePackId: p.rulepack_id,
    occurredAt: new Date(p.occurred_at),
    data: { ...p },
  };
}

export function workflowEvent(p: ComplianceWorkflowEvent, meta?: Pick<NoticeMeta, 'id'>): ComplianceEventInput {
  const topic = COMPLIANCE_WORKFLOW_EVENT.topic;
  return {
    id: idOf(topic, p, meta),
    tenantId: p.tenant_id,
    topic,
    types: [WORKFLOW_EXECUTION_TYPE, topic, p.event],
    rulePackId: null,
    occurredAt: new Date(p.at),
    data: { ...p },
  };
}

/** The topics the REST intake accepts, each with its conversion (the payload already parsed by its contract). */
export const INTAKE_CONTRACTS = [COMPLIANCE_RULE_EXECUTION, COMPLIANCE_WORKFLOW_EVENT] as const;

export type Ingest = (event: ComplianceEventInput) => Promise<IngestResult>;

/** Subscribes the intake to the compliance topics of the process bus. A failing event is logged (the bus cannot redeliver it). */
export async function subscribeIntake(
  bus: ContractBus,
  ingest: Ingest,
  logger: Pick<Logger, 'warn'>,
): Promise<Unsubscribe> {
  const guarded = async (event: ComplianceEventInput) => {
    try {
      await ingest(event);
    } catch (err) {
      logger.warn(
        { err, topic: event.topic, eventId: event.id, tenantId: event.tenantId },
        'compliance: event not taken',
      );
    }
  };
  const stops = [
    await bus.subscribe(COMPLIANCE_RULE_EXECUTION, (p, meta) => guarded(ruleExecutionEvent(p, meta))),
    await bus.subscribe(COMPLIANCE_WORKFLOW_EVENT, (p, meta) => guarded(workflowEvent(p, meta))),
  ];
  return async () => {
    for (const stop of stops) await stop();
  };
}
