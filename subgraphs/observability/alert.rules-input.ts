// Checks a rule or silence as a caller wrote it, naming each bad field (FastAPI's loc) at once.
import type { InputIssue } from '../../platform/errors/domain-errors';
import {
  ALERT_LIMITS,
  type AlertKind,
  type AlertOp,
  type AlertRuleInput,
  type Matchers,
  type SilenceInput,
} from './alert.types';

const KINDS: readonly AlertKind[] = ['threshold', 'rate', 'ratio'];
const OPS: readonly AlertOp[] = ['>', '>=', '<', '<='];
const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]{0,199}$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]{0,99}$/;

const issue = (field: string, msg: string): InputIssue => ({ loc: [field], msg, type: 'value_error' });

function checkMatchers(field: string, m: Matchers | undefined, issues: InputIssue[], required = false): void {
  if (m === undefined || m === null) {
    if (required) issues.push(issue(field, 'At least one matcher is required'));
    return;
  }
  if (typeof m !== 'object' || Array.isArray(m)) return void issues.push(issue(field, 'Input should be an object'));
  const entries = Object.entries(m);
  if (required && entries.length === 0) issues.push(issue(field, 'At least one matcher is required'));
  if (entries.length > ALERT_LIMITS.matchers) issues.push(issue(field, `At most ${ALERT_LIMITS.matchers} matchers`));
  for (const [k, v] of entries) {
    if (!LABEL.test(k)) issues.push(issue(field, 'Label names are [a-zA-Z_][a-zA-Z0-9_]*'));
    if (typeof v !== 'string' || v.length > ALERT_LIMITS.labelLength)
      issues.push(issue(field, `Label values are strings of at most ${ALERT_LIMITS.labelLength} characters`));
  }
}

function checkSeconds(field: string, v: number | undefined, max: number, issues: InputIssue[], min = 0): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min || v > max)
    issues.push(issue(field, `Input should be between ${min} and ${max}`));
}

export function ruleInputIssues(input: AlertRuleInput): InputIssue[] {
  const issues: InputIssue[] = [];
  if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 200)
    issues.push(issue('name', 'A name of 1 to 200 characters is required'));
  if (!KINDS.includes(input.kind)) issues.push(issue('kind', `One of ${KINDS.join(', ')}`));
  if (!OPS.includes(input.op)) issues.push(issue('op', `One of ${OPS.join(' ')}`));
  if (input.scope !== undefined && input.scope !== 'tenant' && input.scope !== 'platform')
    issues.push(issue('scope', 'One of tenant, platform'));
  if (typeof input.metric !== 'string' || !METRIC.test(input.metric))
    issues.push(issue('metric', 'A Prometheus metric name is required'));
  if (typeof input.threshold !== 'number' || !Number.isFinite(input.threshold))
    issues.push(issue('threshold', 'A finite number is required'));
  checkMatchers('matchers', input.matchers, issues);
  if (input.kind === 'ratio') {
    if (input.denominatorMetric !== undefined && !METRIC.test(input.denominatorMetric))
      issues.push(issue('denominator_metric', 'A Prometheus metric name is required'));
    checkMatchers('denominator_matchers', input.denominatorMatchers, issues);
  } else if (input.denominatorMetric !== undefined || input.denominatorMatchers !== undefined) {
    issues.push(issue('denominator_metric', 'Only a ratio rule has a denominator'));
  }
  // A rate or ratio needs two samples in its window: at least a minute.
  checkSeconds('window_seconds', input.windowSeconds, ALERT_LIMITS.maxWindowSeconds, issues, 60);
  checkSeconds('for_seconds', input.forSeconds, ALERT_LIMITS.maxForSeconds, issues);
  if (input.severity !== undefined && !/^[a-z0-9_-]{1,32}$/.test(input.severity))
    issues.push(issue('severity', 'Lowercase letters, digits, - and _ (at most 32)'));
  if (input.summary !== undefined && (typeof input.summary !== 'string' || input.summary.length > 1000))
    issues.push(issue('summary', 'At most 1000 characters'));
  return issues;
}

export function silenceInputIssues(input: SilenceInput, now: number): InputIssue[] {
  const issues: InputIssue[] = [];
  checkMatchers('matchers', input.matchers, issues, true);
  const starts = input.startsAt === undefined ? now : Date.parse(input.startsAt);
  const ends = Date.parse(input.endsAt);
  if (Number.isNaN(starts)) issues.push(issue('starts_at', 'Input should be an ISO 8601 time'));
  if (Number.isNaN(ends)) issues.push(issue('ends_at', 'Input should be an ISO 8601 time'));
  else if (ends <= Math.max(starts, now)) issues.push(issue('ends_at', 'Must be after starts_at and in the future'));
  else if (ends - starts > ALERT_LIMITS.maxSilenceSeconds * 1000)
    issues.push(issue('ends_at', 'A silence lasts at most 90 days'));
  // Who silenced what, and why: the justification is required (issue 31).
  if (typeof input.comment !== 'string' || input.comment.trim() === '' || input.comment.length > 1000)
    issues.push(issue('comment', 'A justification of 1 to 1000 characters is required'));
  return issues;
}
