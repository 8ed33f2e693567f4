// The workflow-pack contract (platform/contracts/workflow-pack.schema.json), compiled once with
// Ajv, and its failures as input issues naming the path inside `artifact` (FastAPI's loc shape,
// the same wording as the route schemas' 422s).
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { InputIssue } from '../../platform/errors/domain-errors';
import { issuesFromValidation } from '../../platform/http/validation';
import { PROJECT_ROOT } from '../../platform/project-root';

export const WORKFLOW_PACK_SCHEMA_PATH = path.join(PROJECT_ROOT, 'platform/contracts/workflow-pack.schema.json');

export function loadWorkflowPackSchema(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(WORKFLOW_PACK_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
}

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);
const validate = ajv.compile(loadWorkflowPackSchema());
// Dataflow packs (issue 33) are the registry's second stored kind, checked against their own contract.
const validateDataflow = ajv.compile(
  JSON.parse(
    fs.readFileSync(path.join(PROJECT_ROOT, 'platform/contracts/dataflow-pack.schema.json'), 'utf8'),
  ) as object,
);

/** The workflow-pack schema's complaints about `value`, or none. */
export function workflowPackIssues(value: unknown): InputIssue[] {
  return issuesOf(validate, value);
}

/** The dataflow-pack schema's complaints about `value`, or none. */
export function dataflowPackIssues(value: unknown): InputIssue[] {
  return issuesOf(validateDataflow, value);
}

function issuesOf(validate: ValidateFunction, value: unknown): InputIssue[] {
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && !isPropertyNameDetail(e));
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const issue = issueOf(e);
    const key = JSON.stringify(issue.loc) + issue.type;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function issueOf(e: ErrorObject): InputIssue {
  if (e.keyword === 'propertyNames') {
    // The step type's allowed members: name the member that does not belong.
    const [base] = issuesFromValidation([{ ...e, keyword: 'type' }], 'body');
    const name = String((e.params as { propertyName?: string }).propertyName);
    return {
      loc: ['artifact', ...base!.loc.slice(1), name],
      msg: 'Not allowed for this step type',
      type: 'extra_forbidden',
    };
  }
  const [issue] = issuesFromValidation([e], 'body');
  return { ...issue!, loc: ['artifact', ...issue!.loc.slice(1)] };
}

/** Ajv reports a bad property name twice: as propertyNames and as the inner enum failure on the name. */
function isPropertyNameDetail(e: ErrorObject): boolean {
  return e.keyword === 'enum' && (e as ErrorObject & { propertyName?: string }).propertyName !== undefined;
}
