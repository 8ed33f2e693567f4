// Topics for the compliance service (still to come): every validation run, and the workflow
// transitions a compliance officer must see (failure, rejection, compensation). Neither carries
// anything of a validated payload: ids, counts and SHA-256 digests only.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { TenantId, Timestamp } from './contract.types';
import { WorkflowTransitionSchema, type WorkflowTransitionEvent } from './workflow.events';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** The data of a run's `rule_execution` ledger event (spec 03's shape plus the run's provenance). */
export const RuleExecutionDataSchema = Type.Object({
  rulepack_id: Type.String(),
  rules_executed: Type.Integer({ minimum: 0 }),
  violations: Type.Integer({ minimum: 0 }),
  result: Type.Union([Type.Literal('passed'), Type.Literal('failed')]),
  input_sha256: Sha256,
  pack_sha256: Sha256,
  pack_source: Type.Union([Type.Literal('registry'), Type.Literal('inline')]),
  rule_pack_version: Type.Union([Type.String(), Type.Null()]),
  validation_type: Type.String(),
  payload_format: Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('xml')]),
  strict_mode: Type.Boolean(),
  records: Type.Integer({ minimum: 0 }),
});

/** One validation run (v1): the ledger event's data and where it belongs. */
export const ComplianceRuleExecutionSchema = Type.Composite(
  [
    RuleExecutionDataSchema,
    Type.Object({
      tenant_id: TenantId,
      user_id: Type.Union([Type.String(), Type.Null()]),
      correlation_id: Type.String(),
      occurred_at: Timestamp,
    }),
  ],
  { $id: 'compliance.rule_execution.v1' },
);
export type ComplianceRuleExecution = Static<typeof ComplianceRuleExecutionSchema>;

export const COMPLIANCE_RULE_EXECUTION = eventContract({
  topic: 'compliance.rule_execution',
  version: 1,
  schema: ComplianceRuleExecutionSchema,
  producer: 'validation',
  consumers: ['compliance'],
  description: 'A validation run: pack, result, counts and digests of the input (never the input itself).',
});

/** The workflow transitions the compliance service is told of. */
export const COMPLIANCE_WORKFLOW_EVENTS = [
  'workflow.failed',
  'workflow.rejected',
  'workflow.compensating',
  'step.compensated',
  'step.compensation_parked',
] as const satisfies readonly WorkflowTransitionEvent[];

/** A workflow transition of compliance interest (v1): the lifecycle payload plus its event. */
export const ComplianceWorkflowEventSchema = Type.Composite(
  [
    WorkflowTransitionSchema,
    Type.Object({ event: Type.Union(COMPLIANCE_WORKFLOW_EVENTS.map((e) => Type.Literal(e))) }),
  ],
  { $id: 'compliance.workflow_event.v1' },
);
export type ComplianceWorkflowEvent = Static<typeof ComplianceWorkflowEventSchema>;

export const COMPLIANCE_WORKFLOW_EVENT = eventContract({
  topic: 'compliance.workflow_event',
  version: 1,
  schema: ComplianceWorkflowEventSchema,
  producer: 'workflow',
  consumers: ['compliance'],
  description: 'A workflow failed, was rejected, or compensated (or parked) a step.',
});
