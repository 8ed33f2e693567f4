// Prompt templates: `{{name}}` placeholders, every one declared in `variables` and every declared
// variable used; rendering checks the values given against the declarations (missing required
// ones and unknown ones are 422s naming the variable).
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { PromptTemplate, TemplateVariable } from './ai-broker.types';

export const TEMPLATE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;
export const MAX_TEMPLATE_LENGTH = 100_000;
export const MAX_VARIABLES = 100;
export const MAX_VARIABLE_VALUE = 100_000;

export interface TemplateInput {
  templateId?: unknown;
  name?: unknown;
  description?: unknown;
  template?: unknown;
  variables?: unknown;
}

export function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The template's shape; 422 naming each problem. */
export function checkTemplate(
  input: TemplateInput,
): Omit<PromptTemplate, 'version' | 'createdAt' | 'versions' | 'createdBy'> {
  const issues: InputIssue[] = [];
  if (input.templateId === undefined || input.templateId === null)
    issues.push({ loc: ['templateId'], msg: 'Field required', type: 'missing' });
  else if (typeof input.templateId !== 'string' || !TEMPLATE_ID.test(input.templateId))
    issues.push({
      loc: ['templateId'],
      msg: `String should match pattern '${TEMPLATE_ID.source}'`,
      type: 'string_pattern_mismatch',
    });
  if (input.template === undefined || input.template === null)
    issues.push({ loc: ['template'], msg: 'Field required', type: 'missing' });
  else if (typeof input.template !== 'string' || input.template.trim().length === 0)
    issues.push({ loc: ['template'], msg: 'A template should be non-empty text', type: 'string_too_short' });
  else if (input.template.length > MAX_TEMPLATE_LENGTH)
    issues.push({
      loc: ['template'],
      msg: `String should have at most ${MAX_TEMPLATE_LENGTH} characters`,
      type: 'string_too_long',
    });
  if (
    input.name !== undefined &&
    input.name !== null &&
    (typeof input.name !== 'string' || input.name.length === 0 || input.name.length > 255)
  )
    issues.push({ loc: ['name'], msg: 'A name should be 1-255 characters', type: 'string_type' });
  if (
    input.description !== undefined &&
    input.description !== null &&
    (typeof input.description !== 'string' || input.description.length > 4000)
  )
    issues.push({
      loc: ['description'],
      msg: 'A description should be text of at most 4000 characters',
      type: 'string_type',
    });

  const variables: TemplateVariable[] = [];
  const raw = input.variables ?? [];
  if (!Array.isArray(raw)) issues.push({ loc: ['variables'], msg: 'Input should be a valid list', type: 'list_type' });
  else if (raw.length > MAX_VARIABLES)
    issues.push({ loc: ['variables'], msg: `List should have at most ${MAX_VARIABLES} items`, type: 'too_long' });
  else {
    raw.forEach((v: unknown, i) => {
      const spec = typeof v === 'string' ? { name: v } : (v as Record<string, unknown>);
      if (
        typeof spec !== 'object' ||
        spec === null ||
        typeof spec.name !== 'string' ||
        !VARIABLE_NAME.test(spec.name)
      ) {
        issues.push({
          loc: ['variables', i],
          msg: `A variable is a name matching '${VARIABLE_NAME.source}' or {name, description?, required?, default?}`,
          type: 'value_error',
        });
        return;
      }
      if (variables.some((d) => d.name === spec.name))
        issues.push({ loc: ['variables', i], msg: `Variable ${spec.name} is declared twice`, type: 'value_error' });
      if (spec.default !== undefined && typeof spec.default !== 'string')
        issues.push({ loc: ['variables', i, 'default'], msg: 'Input should be a valid string', type: 'string_type' });
      variables.push({
        name: spec.name,
        ...(typeof spec.description === 'string' ? { description: spec.description.slice(0, 1000) } : {}),
        required: spec.required === undefined ? spec.default === undefined : spec.required === true,
        ...(typeof spec.default === 'string' ? { default: spec.default } : {}),
      });
    });
  }
  if (typeof input.template === 'string' && Array.isArray(raw) && issues.length === 0) {
    const used = placeholders(input.template);
    for (const name of used)
      if (!variables.some((v) => v.name === name))
        issues.push({
          loc: ['variables'],
          msg: `The template uses {{${name}}}, which is not declared`,
          type: 'value_error',
        });
    variables.forEach((v, i) => {
      if (!used.includes(v.name))
        issues.push({
          loc: ['variables', i],
          msg: `Variable ${v.name} is declared but the template never uses {{${v.name}}}`,
          type: 'value_error',
        });
    });
  }
  if (issues.length > 0) throw new InputError(issues);
  return {
    templateId: input.templateId as string,
    name: typeof input.name === 'string' ? input.name : (input.templateId as string),
    description: typeof input.description === 'string' ? input.description : null,
    template: input.template as string,
    variables,
  };
}

/** The template with the values substituted; 422 naming a missing or unknown variable. */
export function renderTemplate(template: PromptTemplate, values: unknown): string {
  const given = values ?? {};
  if (typeof given !== 'object' || Array.isArray(given))
    throw InputError.of(['variables'], 'Input should be an object of variable values', 'dict_type');
  const issues: InputIssue[] = [];
  const map = given as Record<string, unknown>;
  for (const key of Object.keys(map)) {
    if (!template.variables.some((v) => v.name === key))
      issues.push({
        loc: ['variables', key],
        msg: `Template ${template.templateId} v${template.version} declares no variable ${key}`,
        type: 'extra_forbidden',
      });
  }
  const resolved: Record<string, string> = {};
  for (const v of template.variables) {
    const value = Object.hasOwn(map, v.name) ? map[v.name] : undefined;
    if (value === undefined || value === null) {
      if (v.default !== undefined) resolved[v.name] = v.default;
      else if (v.required) issues.push({ loc: ['variables', v.name], msg: 'Field required', type: 'missing' });
      else resolved[v.name] = '';
    } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const text = String(value);
      if (text.length > MAX_VARIABLE_VALUE)
        issues.push({
          loc: ['variables', v.name],
          msg: `String should have at most ${MAX_VARIABLE_VALUE} characters`,
          type: 'string_too_long',
        });
      resolved[v.name] = text;
    } else {
      issues.push({
        loc: ['variables', v.name],
        msg: 'Input should be a string, number or boolean',
        type: 'string_type',
      });
    }
  }
  if (issues.length > 0) throw new InputError(issues);
  // One pass: a value that itself contains {{x}} is not expanded again.
  return template.template.replace(PLACEHOLDER, (_m, name: string) => resolved[name] ?? '');
}
