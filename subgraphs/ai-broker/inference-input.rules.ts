// The checks of an inference request's own fields. Every problem is gathered into one 422
// (FastAPI's loc/msg/type) before anything is looked up or spent. Pure: no store, no model.
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { AiBrokerConfig } from './ai-broker.config';
import type { InferenceInput } from './ai-broker.types';
import { optionalString } from './input-fields';
import { TEMPLATE_ID } from './prompt-template.rules';
import type { RetrievalScope } from './retrieval.source';

export const MAX_PROMPT_LENGTH = 400_000;

export interface CheckedInference {
  /** Undefined when a template gives the whole prompt. */
  prompt: string | undefined;
  /** The named model, else the configured default (undefined: routing chooses). */
  modelId: string | undefined;
  system: string | undefined;
  maxTokens: number;
  scope: RetrievalScope;
  hasTemplate: boolean;
}

type Limits = Pick<AiBrokerConfig, 'defaultModel' | 'defaultMaxTokens' | 'maxMaxTokens'>;

export function checkInferenceInput(input: InferenceInput, config: Limits): CheckedInference {
  const issues: InputIssue[] = [];
  const hasTemplate = input.templateId !== undefined && input.templateId !== null;
  let prompt: string | undefined;
  if (input.prompt === undefined || input.prompt === null) {
    if (!hasTemplate) issues.push({ loc: ['prompt'], msg: 'Field required', type: 'missing' });
  } else if (typeof input.prompt !== 'string' || input.prompt.trim().length === 0) {
    issues.push({ loc: ['prompt'], msg: 'A prompt should be non-empty text', type: 'string_type' });
  } else if (input.prompt.length > MAX_PROMPT_LENGTH) {
    issues.push({
      loc: ['prompt'],
      msg: `String should have at most ${MAX_PROMPT_LENGTH} characters`,
      type: 'string_too_long',
    });
  } else prompt = input.prompt;
  const modelId = optionalString(issues, 'model', input.model, 100) ?? config.defaultModel;
  const system = optionalString(issues, 'system', input.system, 20_000);
  if (hasTemplate && (typeof input.templateId !== 'string' || !TEMPLATE_ID.test(input.templateId))) {
    issues.push({
      loc: ['templateId'],
      msg: `String should match pattern '${TEMPLATE_ID.source}'`,
      type: 'string_pattern_mismatch',
    });
  }
  const version = input.templateVersion;
  if (version !== undefined && version !== null && (!Number.isInteger(version) || (version as number) < 1)) {
    issues.push({ loc: ['templateVersion'], msg: 'Input should be a positive integer', type: 'int_type' });
  }
  let maxTokens = config.defaultMaxTokens;
  if (input.maxTokens !== undefined && input.maxTokens !== null) {
    if (
      !Number.isInteger(input.maxTokens) ||
      (input.maxTokens as number) < 1 ||
      (input.maxTokens as number) > config.maxMaxTokens
    ) {
      issues.push({
        loc: ['maxTokens'],
        msg: `Input should be an integer from 1 to ${config.maxMaxTokens}`,
        type: 'int_type',
      });
    } else maxTokens = input.maxTokens as number;
  }
  for (const field of ['useRag', 'detokenize'] as const) {
    const v = input[field];
    if (v !== undefined && v !== null && typeof v !== 'boolean')
      issues.push({ loc: [field], msg: 'Input should be a valid boolean', type: 'bool_type' });
  }
  const scope = checkScope(issues, input.context);
  if (issues.length > 0) throw new InputError(issues);
  return { prompt, modelId, system, maxTokens, scope, hasTemplate };
}

/**
 * entity_id is this platform's addition to spec 02's {suite_id, module_id}: retrieval's cascade
 * has four levels, and an answer about one entity should see its own knowledge first. Both
 * spellings are read, since REST sends snake_case and GraphQL camelCase.
 */
function checkScope(issues: InputIssue[], context: unknown): RetrievalScope {
  const scope: RetrievalScope = {};
  if (context === undefined || context === null) return scope;
  if (typeof context !== 'object' || Array.isArray(context)) {
    issues.push({
      loc: ['context'],
      msg: 'Input should be an object with suite_id, module_id and entity_id',
      type: 'dict_type',
    });
    return scope;
  }
  const c = context as Record<string, unknown>;
  const ids = {
    suiteId: c.suite_id ?? c.suiteId,
    moduleId: c.module_id ?? c.moduleId,
    entityId: c.entity_id ?? c.entityId,
  };
  for (const [key, name] of [
    ['suiteId', 'suite_id'],
    ['moduleId', 'module_id'],
    ['entityId', 'entity_id'],
  ] as const) {
    const v = ids[key];
    if (v !== undefined && v !== null && (typeof v !== 'string' || v.length === 0 || v.length > 100)) {
      issues.push({ loc: ['context', name], msg: 'Input should be a string of 1-100 characters', type: 'string_type' });
    } else if (typeof v === 'string') scope[key] = v;
  }
  return scope;
}
