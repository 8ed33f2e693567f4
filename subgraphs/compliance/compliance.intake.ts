// The intake's adapters: from the platform's compliance topics to `ingestComplianceEvent`.
// The service consumes them from the events backbone with durable consumers (platform groups over
// every tenant's stream, platform/events/backbone/durable-consumer.ts): at least once, so the
// intake deduplicates by the CloudEvents id the notice outbox gave each event. An event the
// intake cannot take is redelivered with backoff, then rests in the group's dead-letter queue.
// A bare payload (REST, no envelope) gets a content-derived id, so a repeat of it is one event.
import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import {
  COMPLIANCE_RULE_EXECUTION,
  COMPLIANCE_WORKFLOW_EVENT,
  type ComplianceRuleExecution,
  type ComplianceWorkflowEvent,
} from '../../platform/contracts/compliance.events';
import type { Database } from '../../platform/db/database';
import { contractHandler } from '../../platform/events/backbone/contract-handler';
import { consume, type ConsumeOptions, type DurableConsumer } from '../../platform/events/backbone/durable-consumer';
import type { ComplianceEventInput, IngestResult } from './compliance.types';

/** The ledger event types the spec names for these runs: what mapping packs usually match. */
export const RULE_EXECUTION_TYPE = 'rule_execution';
export const WORKFLOW_EXECUTION_TYPE = 'workflow_execution';

function idOf(topic: string, payload: unknown, meta?: { id?: string }): string {
  if (meta?.id) return meta.id;
  return `sha256:${crypto
    .createHash('sha256')
    .update(`${topic}\n${canonicalize(payload) ?? ''}`)
    .digest('hex')}`;
}

export function ruleExecutionEvent(p: ComplianceRuleExecution, meta?: { id?: string }): ComplianceEventInput {
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

export function workflowEvent(p: ComplianceWorkflowEvent, meta?: { id?: string }): ComplianceEventInput {
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

/** The durable consumers' group names (platform groups, one per topic). */
export const INTAKE_GROUPS = {
  [COMPLIANCE_RULE_EXECUTION.topic]: 'compliance.intake.rule_execution',
  [COMPLIANCE_WORKFLOW_EVENT.topic]: 'compliance.intake.workflow_event',
} as const;

/**
 * Consumes the compliance topics from the backbone. A new group starts at every stream's
 * beginning, so a compliance service started after the runs still takes them as evidence.
 */
export async function consumeIntake(
  db: Pick<Database, 'sql'>,
  ingest: Ingest,
  options: Pick<ConsumeOptions, 'bus' | 'logger' | 'pollMs' | 'backoffMs'>,
): Promise<() => Promise<void>> {
  const consumers: DurableConsumer[] = [
    await consume(db, {
      ...options,
      subscription: INTAKE_GROUPS[COMPLIANCE_RULE_EXECUTION.topic],
      topic: COMPLIANCE_RULE_EXECUTION.topic,
      from: 'start',
      handler: contractHandler(COMPLIANCE_RULE_EXECUTION, async (p, event) => {
        await ingest(ruleExecutionEvent(p, event));
      }),
    }),
    await consume(db, {
      ...options,
      subscription: INTAKE_GROUPS[COMPLIANCE_WORKFLOW_EVENT.topic],
      topic: COMPLIANCE_WORKFLOW_EVENT.topic,
      from: 'start',
      handler: contractHandler(COMPLIANCE_WORKFLOW_EVENT, async (p, event) => {
        await ingest(workflowEvent(p, event));
      }),
    }),
  ];
  return async () => {
    for (const c of consumers) await c.stop();
  };
}
