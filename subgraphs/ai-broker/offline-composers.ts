// What the offline extractive model answers for the broker's two tasks that need no language
// model: explaining a rule failure from its own data, and a workflow pack from a description.
// Both are deterministic (the same request gives the same answer), built only from the
// (redacted) request, and valid by construction: the pack passes the workflow-pack schema.

function describe(value: unknown): string {
  if (typeof value === 'string') return `"${value.slice(0, 200)}"`;
  if (value === null || value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

const FIELD_KEYS = ['field', 'field_name', 'path'];
const MESSAGE_KEYS = ['message', 'error_message', 'error', 'reason'];
const ACTUAL_KEYS = ['actual', 'actual_value', 'value', 'received'];
const EXPECTED_KEYS = ['expected', 'expected_value', 'min', 'max', 'pattern', 'allowed'];

function pick(data: Record<string, unknown>, keys: string[]): [string, unknown] | undefined {
  for (const k of keys) if (Object.hasOwn(data, k) && data[k] !== undefined) return [k, data[k]];
  return undefined;
}

export function offlineExplanation(
  ruleId: string,
  failure: Record<string, unknown>,
  remediation: boolean,
): { explanation: string; remediation: string | null } {
  const field = pick(failure, FIELD_KEYS);
  const message = pick(failure, MESSAGE_KEYS);
  const actual = pick(failure, ACTUAL_KEYS);
  const operator = typeof failure.operator === 'string' ? failure.operator : undefined;
  const expected = EXPECTED_KEYS.filter((k) => Object.hasOwn(failure, k)).map((k) => `${k} ${describe(failure[k])}`);
  const parts = [`Rule ${ruleId} failed${field ? ` on field ${describe(field[1])}` : ''}.`];
  if (message) parts.push(`The rule reports: ${describe(message[1])}.`);
  if (operator)
    parts.push(
      `It checks the field with the operator ${operator}${expected.length ? ` (${expected.join(', ')})` : ''}.`,
    );
  else if (expected.length) parts.push(`It expects ${expected.join(', ')}.`);
  if (actual) parts.push(`The record holds ${describe(actual[1])}.`);
  const others = Object.keys(failure).filter(
    (k) => ![...FIELD_KEYS, ...MESSAGE_KEYS, ...ACTUAL_KEYS, ...EXPECTED_KEYS, 'operator'].includes(k),
  );
  if (others.length)
    parts.push(
      `Other details given: ${others
        .slice(0, 10)
        .map((k) => `${k} ${describe(failure[k])}`)
        .join('; ')}.`,
    );
  parts.push('(Explained by the offline extractive model from the failure data alone.)');
  let fix: string | null = null;
  if (remediation) {
    const where = field ? `field ${describe(field[1])}` : 'the record';
    fix =
      operator === 'required' || operator === 'is_not_null'
        ? `Provide a value for ${where} and submit the record again.`
        : operator === 'range' || Object.hasOwn(failure, 'min') || Object.hasOwn(failure, 'max')
          ? `Correct ${where} to lie within the allowed range${expected.length ? ` (${expected.join(', ')})` : ''}, or have the limit reviewed if the value is right.`
          : operator === 'matches' || Object.hasOwn(failure, 'pattern')
            ? `Correct ${where} to the expected format${expected.length ? ` (${expected.join(', ')})` : ''}.`
            : `Correct ${where} so that rule ${ruleId} holds${expected.length ? ` (${expected.join(', ')})` : ''}, then validate again.`;
  }
  return { explanation: parts.join(' '), remediation: fix };
}

const WORKFLOW_TYPES = ['legal', 'financial', 'compliance', 'risk', 'operational'] as const;
const DOMAIN_TYPES: Record<string, (typeof WORKFLOW_TYPES)[number]> = {
  finance: 'financial',
  financial: 'financial',
  banking: 'financial',
  payments: 'financial',
  accounting: 'financial',
  lending: 'financial',
  legal: 'legal',
  contracts: 'legal',
  compliance: 'compliance',
  kyc: 'compliance',
  aml: 'compliance',
  regulatory: 'compliance',
  risk: 'risk',
  fraud: 'risk',
  underwriting: 'risk',
};

export function workflowTypeOf(domain: string): (typeof WORKFLOW_TYPES)[number] {
  const d = domain.toLowerCase().trim();
  return (WORKFLOW_TYPES as readonly string[]).includes(d)
    ? (d as (typeof WORKFLOW_TYPES)[number])
    : (DOMAIN_TYPES[d] ?? 'operational');
}

function slug(text: string, max = 40): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return s || 'step';
}

interface StepDraft {
  step: string;
  type: 'validation' | 'hil_approval' | 'ai' | 'action';
  [key: string]: unknown;
}

/** A workflow pack from a description: one step per clause, typed by its verbs. Confidence 0-1. */
export function offlineWorkflowPack(
  description: string,
  domain: string,
): { pack: Record<string, unknown>; confidence: number } {
  const clauses = description
    .split(/(?:[.!?](?=\s|$)|[;\n]|,\s*(?:and\s+)?then\b|\band then\b|\bthen\b|\bafter that\b|\bfinally\b|,)/i)
    .map((c) => c.trim().replace(/^(and|first|next|also)\s+/i, ''))
    .filter((c) => c.length > 2)
    .slice(0, 50);
  const domainSlug = slug(domain || 'general', 30);
  let recognised = 0;
  const steps: StepDraft[] = clauses.map((clause, i) => {
    const name = `${i + 1}-${slug(clause, 40)}`;
    if (/\b(approv|review|sign[- ]?off|authori[sz]e|manual check|human)/i.test(clause)) {
      recognised++;
      const role = /\bby (?:a |an |the )?([a-z][a-z_-]{1,40})/i.exec(clause)?.[1]?.toLowerCase();
      return {
        step: name,
        type: 'hil_approval',
        description: clause.slice(0, 4000),
        reviewer_role: role ?? 'reviewer',
        instructions: clause.slice(0, 4000),
      };
    }
    if (/\b(validat|verif|check|screen|kyc|aml|sanction|complian)/i.test(clause)) {
      recognised++;
      return {
        step: name,
        type: 'validation',
        description: `${clause.slice(0, 3900)} (rule pack to confirm)`,
        rule_pack_id: `${domainSlug}-rules`,
        rule_pack_version: '1.0.0',
      };
    }
    if (/\b(summari[sz]|classif|extract|draft|analy[sz]|generate|explain|translate)/i.test(clause)) {
      recognised++;
      return {
        step: name,
        type: 'ai',
        description: clause.slice(0, 4000),
        prompt: clause.slice(0, 20000),
        output_field: `${slug(clause, 30).replace(/-/g, '_')}_result`,
      };
    }
    if (
      /\b(send|notify|email|store|save|create|update|record|post|pay|transfer|archive|publish|submit|file)\b/i.test(
        clause,
      )
    )
      recognised++;
    return { step: name, type: 'action', action: slug(clause, 60), description: clause.slice(0, 4000) };
  });
  if (steps.length === 0)
    steps.push({
      step: '1-review',
      type: 'hil_approval',
      description: 'Review the request',
      reviewer_role: 'reviewer',
    });
  const title = description.trim().replace(/\s+/g, ' ');
  const pack = {
    metadata: {
      pack_id: `${domainSlug}-${slug(title, 40)}`.slice(0, 200),
      version: '1.0.0',
      workflow_type: workflowTypeOf(domain),
      name: (title.length > 80 ? `${title.slice(0, 77)}...` : title) || 'Generated workflow',
      description: `Generated from a description by the offline extractive model: ${title}`.slice(0, 4000),
    },
    steps,
  };
  // Honest about how much it understood: at most 0.6, for a model that only reads verbs.
  const confidence = Math.round(Math.min(0.6, 0.2 + 0.4 * (recognised / Math.max(1, clauses.length))) * 100) / 100;
  return { pack, confidence };
}
