// The usage record of one model call (inference, a task, a model test), as ai-broker.audit.ts writes
// it to the ledger, and the call's cost from the catalogue's price per 1k tokens.
import type { ModelEntry } from './model-catalogue';
import type { Attempt } from './model-router';
import type { UsageEvent } from './ai-broker.audit';

/** Rounded to a millionth: a sum of many small calls stays exact enough without float noise. */
export const cost = (model: ModelEntry, tokens: number): number =>
  Math.round(((model.costPer1kTokens * tokens) / 1000) * 1e6) / 1e6;

/** `model` is null when no model answered (every attempt failed): nothing is charged. */
export function usageEvent(
  operation: string,
  status: 'ok' | 'failed',
  model: ModelEntry | null,
  promptTokens: number,
  completionTokens: number,
  latencyMs: number,
  attempts: Attempt[],
  redactions: UsageEvent['redactions'],
  mode: string,
  extra: Partial<UsageEvent> = {},
): UsageEvent {
  // Object.assign, not `{ ..., ...extra }`: Node 20 builds an object literal followed by a spread
  // on a slow path (~1-2 us a call here; docs/benchmarks.md, branch val, 2026-11-29).
  const event: UsageEvent = {
    operation,
    status,
    model: model?.id ?? null,
    provider: model?.provider ?? null,
    promptTokens,
    completionTokens,
    cost: model ? cost(model, promptTokens + completionTokens) : 0,
    latencyMs,
    attempts,
    redactions,
    redactionMode: mode,
    ragChunksUsed: 0,
    ragUnavailable: false,
    templateId: null,
    templateVersion: null,
    detokenized: 0,
  };
  return Object.assign(event, extra);
}
