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
import {
  DATAFLOW_RECONCILIATION_COMPLETED,
  SCANNER_FINDING,
  type DataflowReconciliationCompleted,
  type ScannerFinding,
} from '../../platform/contracts/pipeline.events';
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

/** Mapping packs match a reconciliation by `reconciliation`, its topic, or `reconciliation.passed|failed`. */
export const RECONCILIATION_TYPE = 'reconciliation';
/** And a scanner finding by `scanner_finding`, its topic, or `scanner.finding.open|suppressed|reopened|resolved`. */
export const SCANNER_FINDING_TYPE = 'scanner_finding';

export function reconciliationEvent(p: DataflowReconciliationCompleted, meta?: { id?: string }): ComplianceEventInput {
  const topic = DATAFLOW_RECONCILIATION_COMPLETED.topic;
  return {
    id: idOf(topic, p, meta),
    tenantId: p.tenant_id,
    topic,
    types: [RECONCILIATION_TYPE, topic, `${RECONCILIATION_TYPE}.${p.result}`],
    rulePackId: p.pack_id,
    occurredAt: new Date(p.at),
    data: { ...p },
  };
}

/** A finding is evidence for the controls it names, in every framework of the tenant that has them, and for mapped ones. */
export function scannerFindingEvent(p: ScannerFinding, meta?: { id?: string }): ComplianceEventInput {
  const topic = SCANNER_FINDING.topic;
  return {
    id: idOf(topic, p, meta),
    tenantId: p.tenant_id,
    topic,
    types: [SCANNER_FINDING_TYPE, topic, `${topic}.${p.status}`],
    rulePackId: p.pack_id,
    controlIds: [...new Set(p.controls)],
    occurredAt: new Date(p.at),
    data: { ...p },
  };
}

/** The topics the REST intake accepts, each with its conversion (the payload already parsed by its contract). */
export const INTAKE_CONTRACTS = [
  COMPLIANCE_RULE_EXECUTION,
  COMPLIANCE_WORKFLOW_EVENT,
  DATAFLOW_RECONCILIATION_COMPLETED,
  SCANNER_FINDING,
] as const;

/** A payload its topic's contract accepted, as the intake takes it. */
export function intakeEventOf(
  contract: (typeof INTAKE_CONTRACTS)[number],
  payload: unknown,
  meta: { id?: string },
): ComplianceEventInput {
  switch (contract.topic) {
    case COMPLIANCE_RULE_EXECUTION.topic:
      return ruleExecutionEvent(payload as ComplianceRuleExecution, meta);
    case COMPLIANCE_WORKFLOW_EVENT.topic:
      return workflowEvent(payload as ComplianceWorkflowEvent, meta);
    case DATAFLOW_RECONCILIATION_COMPLETED.topic:
      return reconciliationEvent(payload as DataflowReconciliationCompleted, meta);
    case SCANNER_FINDING.topic:
      return scannerFindingEvent(payload as ScannerFinding, meta);
  }
}

export type Ingest = (event: ComplianceEventInput) => Promise<IngestResult>;

/** The durable consumers' group names (platform groups, one per topic). */
export const INTAKE_GROUPS = {
  [COMPLIANCE_RULE_EXECUTION.topic]: 'compliance.intake.rule_execution',
  [COMPLIANCE_WORKFLOW_EVENT.topic]: 'compliance.intake.workflow_event',
  [DATAFLOW_RECONCILIATION_COMPLETED.topic]: 'compliance.intake.reconciliation',
  [SCANNER_FINDING.topic]: 'compliance.intake.scanner_finding',
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
    await consume(db, {
      ...options,
      subscription: INTAKE_GROUPS[DATAFLOW_RECONCILIATION_COMPLETED.topic],
      topic: DATAFLOW_RECONCILIATION_COMPLETED.topic,
      from: 'start',
      handler: contractHandler(DATAFLOW_RECONCILIATION_COMPLETED, async (p, event) => {
        await ingest(reconciliationEvent(p, event));
      }),
    }),
    await consume(db, {
      ...options,
      subscription: INTAKE_GROUPS[SCANNER_FINDING.topic],
      topic: SCANNER_FINDING.topic,
      from: 'start',
      handler: contractHandler(SCANNER_FINDING, async (p, event) => {
        await ingest(scannerFindingEvent(p, event));
      }),
    }),
  ];
  return async () => {
    for (const c of consumers) await c.stop();
  };
}
