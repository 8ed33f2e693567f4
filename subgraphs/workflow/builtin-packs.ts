// The built-in pack of each workflow type. Existing clients send `workflow_pack_id`s that no
// registry of ours holds (the legacy service had its packs in code); such an id runs the built-in
// pack of its `workflow_type`, and the response says so (`pack_source: builtin`).
// WORKFLOW_REQUIRE_REGISTERED_PACKS=true turns that into a 404. Every step uses the action
// catalogue's `record` action: it keeps a note of what was done in the execution's context, so
// the saga shape (steps, compensations, approval gate) is real even without outside systems.
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
