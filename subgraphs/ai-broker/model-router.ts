// Which models a request tries, in order. A named model comes first when it can take the request;
// the rest follow by cost and measured latency (AI_ROUTING_STRATEGY: balanced, cost or latency),
// among the models the tenant's compliance tags allow, whose provider is configured and not known
// to be down or cooling down, and whose context window holds the prompt plus the answer. The
// offline extractive model is tried when it is named, or when no vendor model is eligible at all
// (with no key configured the platform still answers, and says which model did).
import { InputError } from '../../platform/errors/domain-errors';
import type { ModelHealth } from './model-health';
import type { ModelEntry, TenantPolicy } from './model-catalogue';

export type RoutingStrategy = 'balanced' | 'cost' | 'latency';
export const ROUTING_STRATEGIES: readonly RoutingStrategy[] = ['balanced', 'cost', 'latency'];

export interface Attempt {
  model: string;
  provider: string;
  /** `ok`, a failure kind (rate_limited, overloaded, timeout, unavailable, auth...), or `skipped`. */
  outcome: string;
  /** Why a model was skipped without a call. */
  reason?: string;
  latency_ms?: number;
}

export interface RoutePlan {
  candidates: ModelEntry[];
  /** Models passed over before any call, with the reason (reported with the attempts). */
  skipped: Attempt[];
}

export interface RouteRequest {
  /** The model the caller named, already known to exist. */
  named?: ModelEntry;
  promptTokens: number;
  maxTokens: number;
}

export function planRoute(
  models: readonly ModelEntry[],
  health: ModelHealth,
  policy: TenantPolicy,
  request: RouteRequest,
  strategy: RoutingStrategy,
): RoutePlan {
  const needed = request.promptTokens + request.maxTokens;
  if (request.named && request.named.contextWindow < needed) {
    // The caller chose this model: a silently larger (and dearer) one would surprise more than a 422.
    throw InputError.of(
      ['prompt'],
      `The prompt (about ${request.promptTokens} tokens) plus max_tokens (${request.maxTokens}) exceeds the context window of ${request.named.id} (${request.named.contextWindow} tokens); shorten it, lower max_tokens, or name no model to be routed to a larger one`,
      'too_long',
    );
  }
  const skipped: Attempt[] = [];
  const skip = (m: ModelEntry, reason: string) =>
    skipped.push({ model: m.id, provider: m.provider, outcome: 'skipped', reason });
  const allowed = models.filter((m) => (policy.requiredTags ?? []).every((t) => m.tags.includes(t)));
  if (request.named && !allowed.includes(request.named)) {
    throw InputError.of(
      ['model'],
      `Model ${request.named.id} is not allowed for this tenant (its compliance rules require models tagged ${(policy.requiredTags ?? []).join(', ')})`,
      'value_error',
    );
  }
  const eligible: ModelEntry[] = [];
  let tooSmall = 0;
  let anyVendorConfigured = false;
  const statuses = health.statuses(allowed); // a named model is among them (checked above)
  for (const m of allowed) {
    if (m.provider === 'extractive') continue;
    const status = statuses.get(m)!;
    if (status === 'unconfigured') continue; // not offered: nothing to report per request
    anyVendorConfigured = true;
    if (status === 'unavailable' || status === 'cooling_down') skip(m, status);
    else if (m.contextWindow < needed) {
      tooSmall++;
      skip(m, 'context_window');
    } else eligible.push(m);
  }
  const cost = (m: ModelEntry) => m.costPer1kTokens;
  const latency = (m: ModelEntry) => health.latencyOf(m);
  const maxCost = Math.max(1e-9, ...eligible.map(cost));
  const maxLatency = Math.max(1e-9, ...eligible.map(latency));
  const score = (m: ModelEntry) =>
    strategy === 'cost'
      ? cost(m) / maxCost + latency(m) / maxLatency / 1000
      : strategy === 'latency'
        ? latency(m) / maxLatency + cost(m) / maxCost / 1000
        : cost(m) / maxCost + latency(m) / maxLatency;
  eligible.sort((a, b) => score(a) - score(b) || a.id.localeCompare(b.id));

  const extractive = allowed.find((m) => m.provider === 'extractive');
  const candidates = eligible;
  const named = request.named;
  if (named) {
    const i = candidates.indexOf(named);
    if (i >= 0) candidates.unshift(...candidates.splice(i, 1));
    else if (named.provider === 'extractive') candidates.unshift(named);
    else if (statuses.get(named) === 'unconfigured') skip(named, 'unconfigured');
  }
  if (extractive && !anyVendorConfigured && !candidates.includes(extractive)) candidates.push(extractive);
  if (candidates.length === 0 && tooSmall > 0 && skipped.every((s) => s.reason === 'context_window')) {
    throw InputError.of(
      ['prompt'],
      `The prompt (about ${request.promptTokens} tokens) plus max_tokens (${request.maxTokens}) exceeds the context window of every available model`,
      'too_long',
    );
  }
  return { candidates, skipped };
}
