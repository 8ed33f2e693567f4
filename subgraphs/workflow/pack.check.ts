// Checks a workflow pack against the contract (platform/contracts/workflow-pack.schema.json,
// compiled once with Ajv) before it runs, and an execution payload against the pack's inline
// `input_schema`. A registry pack was checked on submission; checking again here keeps the
// executor safe from a registry that answers something else.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import { issuesFromValidation } from '../../platform/http/validation';
import { PROJECT_ROOT } from '../../platform/project-root';
import type { PackStep, WorkflowPack } from './workflow.types';

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);
const validatePack = ajv.compile(
  JSON.parse(
    fs.readFileSync(path.join(PROJECT_ROOT, 'platform/contracts/workflow-pack.schema.json'), 'utf8'),
  ) as object,
);

/** Payload schemas are the pack author's: compiled leniently (unknown keywords ignored), cached by text. */
const payloadAjv = new Ajv({ allErrors: true, strict: false });
addFormats(payloadAjv);
const payloadValidators = new Map<string, ValidateFunction>();

/** Problems that make a pack unfit to run, or none. */
export function packProblems(pack: unknown): string[] {
  if (!validatePack(pack))
    return (validatePack.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  const names = new Set<string>();
  const problems: string[] = [];
  const walk = (steps: PackStep[]) => {
    for (const s of steps) {
      if (names.has(s.step)) problems.push(`step name '${s.step}' is used twice`);
      names.add(s.step);
      if (s.type === 'action' && s.workflow_pack_id)
        problems.push(`step '${s.step}': sub-workflows are not supported yet`);
      for (const b of s.branches ?? []) walk(b.steps);
      walk(s.otherwise ?? []);
      walk(s.steps ?? []);
    }
  };
  walk((pack as WorkflowPack).steps);
  return problems;
}

/** 422 naming `payload` (and the path inside it) when the payload fails the pack's input schema. */
export function checkPayload(pack: WorkflowPack, payload: Record<string, unknown>): void {
  if (!pack.input_schema) return;
  const key = JSON.stringify(pack.input_schema);
  let validate = payloadValidators.get(key);
  if (!validate) {
    try {
      validate = payloadAjv.compile(pack.input_schema);
    } catch (err) {
      throw InputError.of(['workflowPackId'], `The pack's input_schema does not compile: ${(err as Error).message}`);
    }
    if (payloadValidators.size > 500) payloadValidators.clear();
    payloadValidators.set(key, validate);
  }
  if (validate(payload)) return;
  const issues: InputIssue[] = issuesFromValidation(validate.errors ?? [], 'payload').map((i) => ({
    ...i,
    loc: ['payload', ...i.loc.slice(1)],
  }));
  throw new InputError(
    issues.length > 0
      ? issues
      : [{ loc: ['payload'], msg: "Payload does not match the pack's input schema", type: 'value_error' }],
  );
}
