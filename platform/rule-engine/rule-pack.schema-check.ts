// The contract's JSON Schema (platform/contracts/rule-pack.schema.json), checked with Ajv. Issues
// carry the pack location as a path: /rules/0/type -> ['rules', 0, 'type'].
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import schema from '../contracts/rule-pack.schema.json';
import type { RulePackIssue } from './rule-pack.error';

let validate: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(schema);
  }
  return validate;
}

const MAX_ISSUES = 50;

function issueOf(err: ErrorObject): RulePackIssue {
  const path: (string | number)[] = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') path.push(String(params.missingProperty));
  if (err.keyword === 'additionalProperties') {
    path.push(String(params.additionalProperty));
    return { path, message: 'unknown member', type: err.keyword };
  }
  if (err.keyword === 'enum') {
    return {
      path,
      message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      type: err.keyword,
    };
  }
  return { path, message: err.message ?? 'is invalid', type: err.keyword };
}

export function schemaIssues(pack: unknown): RulePackIssue[] {
  const check = validator();
  if (check(pack)) return [];
  const issues: RulePackIssue[] = [];
  const seen = new Set<string>();
  for (const err of check.errors ?? []) {
    // allOf/$ref report one problem several times; keep one per path and kind.
    const issue = issueOf(err);
    const key = `${JSON.stringify(issue.path)} ${issue.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
    if (issues.length >= MAX_ISSUES) break;
  }
  return issues;
}
