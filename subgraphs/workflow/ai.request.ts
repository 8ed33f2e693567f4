// What an `ai` step asks the AI broker (docs/workflow.md, "ai steps"): the step's prompt, or its
// template id with variables, rendered from the workflow data (the payload and earlier steps'
// outputs). `{{path}}` placeholders are filled once (a value containing `{{x}}` is not expanded
// again), so what a payload says can never reach into other data.
import type { InferenceRequest } from '../../platform/clients/ai-broker.client';
import { readPath } from './workflow.data';
import type { PackStep } from './workflow.types';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_$.[\]-]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z0-9_$.[\]-]+)\s*\}\}$/;

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `{{path}}` replaced by the data at path (objects as JSON, missing as empty). */
export function renderText(template: string, data: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_whole, path: string) => text(readPath(data, path)));
}

/** A template variable: a string that is one placeholder keeps a scalar's type; other strings are rendered. */
function renderVariable(value: string | number | boolean, data: Record<string, unknown>): string | number | boolean {
  if (typeof value !== 'string') return value;
  const whole = WHOLE.exec(value);
  if (whole) {
    const v = readPath(data, whole[1]!);
    if (typeof v === 'number' || typeof v === 'boolean') return v;
    return text(v);
  }
  return renderText(value, data);
}

export function inferenceRequestOf(step: PackStep, data: Record<string, unknown>): InferenceRequest {
  const common: InferenceRequest = {
    ...(step.model ? { model: step.model } : {}),
    ...(step.max_tokens ? { max_tokens: step.max_tokens } : {}),
    ...(step.system ? { system: renderText(step.system, data) } : {}),
  };
  if (step.template_id) {
    const variables = Object.fromEntries(
      Object.entries(step.variables ?? {}).map(([k, v]) => [k, renderVariable(v, data)]),
    );
    return {
      ...common,
      template_id: step.template_id,
      ...(step.template_version ? { template_version: step.template_version } : {}),
      variables,
    };
  }
  let prompt = renderText(step.prompt ?? '', data);
  // input_field: the part of the data the model is asked about, appended as JSON.
  if (step.input_field) prompt = `${prompt}\n\nInput:\n${text(readPath(data, step.input_field))}`;
  return { ...common, prompt };
}
