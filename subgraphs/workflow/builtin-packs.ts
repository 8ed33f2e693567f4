// The built-in pack of each workflow type. Existing clients send `workflow_pack_id`s that no
// registry of ours holds (the legacy service had its packs in code); such an id runs the built-in
// pack of its `workflow_type`, and the response says so (`pack_source: builtin`).
// WORKFLOW_REQUIRE_REGISTERED_PACKS=true turns that into a 404. Every step uses the action
// catalogue's `record` action: it keeps a note of what was done in the execution's context, so
// the saga shape (steps, compensations, approval gate) is real even without outside systems.
import {
  COMPLIANCE_SIGN_OFF_PACK_ID,
  COMPLIANCE_SIGN_OFF_PACK_VERSION,
  SIGN_OFF_REVIEW_STEP,
  SIGN_OFF_REVIEWER_ROLE,
} from '../../platform/contracts/compliance.sign-off';
import type { PackStep, WorkflowPack, WorkflowType } from './workflow.types';

const record = (step: string, compensation?: string, description?: string): PackStep => ({
  step,
  type: 'action',
  action: 'record',
  ...(compensation ? { compensation } : {}),
  ...(description ? { description } : {}),
  parameters: { note: step },
  output_field: `steps.${step}`,
});

const STEPS: Record<WorkflowType, PackStep[]> = {
  legal: [
    record('verify-documents', undefined, 'Check the instrument and the parties'),
    record('record-transfer', 'record', 'Record the title transfer, lien release or ownership change'),
    record('notify-parties', undefined, 'Tell the parties the change is recorded'),
  ],
  financial: [
    record('check-funds', undefined, 'Check the source account'),
    record('execute-transaction', 'record', 'Execute the payment, refund or transfer'),
    record('post-ledger-entry', 'record', 'Post the entry to the books'),
  ],
  compliance: [
    record('assemble-filing', undefined, 'Assemble the regulatory filing or audit modification'),
    record('submit-filing', 'record', 'Submit it'),
    record('archive-evidence', undefined, 'Archive the evidence'),
  ],
  risk: [
    record('assess-exposure', undefined, "Assess the operation's exposure"),
    record('apply-controls', 'record', 'Apply the controls of the high-value operation or the access grant'),
    record('log-decision', undefined, 'Log the decision'),
  ],
  operational: [
    record('prepare', undefined, 'Prepare the operation'),
    record('execute', 'record', 'Execute it'),
    record('confirm', undefined, 'Confirm the outcome'),
  ],
};

/** The built-in pack of a workflow type; `requires_approval` is left to the approval policy. */
export function builtinPack(workflowType: WorkflowType): WorkflowPack {
  return {
    metadata: {
      pack_id: `builtin-${workflowType}`,
      version: '1.0.0',
      workflow_type: workflowType,
      name: `Built-in ${workflowType} workflow`,
    },
    steps: STEPS[workflowType],
  };
}

/**
 * Built-in packs known by id, resolved before the registry: their ids are reserved, so a tenant
 * cannot register a pack of the same id that weakens the gate. The compliance report sign-off
 * starts with its approval (`reviewer_role: reviewer`: the workflow itself refuses a tenant user
 * without the role, and the submitter by its four-eyes rule), then records the sign-off.
 */
const NAMED: Record<string, WorkflowPack> = {
  [COMPLIANCE_SIGN_OFF_PACK_ID]: {
    metadata: {
      pack_id: COMPLIANCE_SIGN_OFF_PACK_ID,
      version: COMPLIANCE_SIGN_OFF_PACK_VERSION,
      workflow_type: 'compliance',
      name: 'Compliance report sign-off',
      description: 'A second person with the reviewer role reviews a generated compliance report and signs it off',
    },
    requires_approval: true,
    steps: [
      {
        step: SIGN_OFF_REVIEW_STEP,
        type: 'hil_approval',
        reviewer_role: SIGN_OFF_REVIEWER_ROLE,
        instructions:
          "Review the report's verdicts, evidence and proofs; approve to sign it off (it is then appended to the ledger as compliance_report)",
      },
      record('record-sign-off', undefined, 'Record the decision with the report'),
    ],
  },
};

/** The reserved built-in pack of that id, if it is one. */
export function namedBuiltinPack(packId: string | undefined): WorkflowPack | undefined {
  return packId !== undefined && Object.hasOwn(NAMED, packId) ? NAMED[packId] : undefined;
}
