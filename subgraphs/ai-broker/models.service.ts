// The model catalogue as callers see it: the list, one model's health, and a live test call.
// Also the lookup by id that inference uses for a named model (404 for an unknown one).
import { performance } from 'node:perf_hooks';
import type { Caller } from '../../platform/auth/caller';
import { NotFoundError } from '../../platform/errors/domain-errors';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import { echo } from './input-fields';
import type { ModelEntry } from './model-catalogue';
import type { ModelHealthView } from './model-health';
import { AllModelsFailedError } from './model-executor';
import type { ProviderName } from './providers/provider';
import { usageEvent } from './usage-event';

export interface ModelView {
  id: string;
  provider: ProviderName;
  status: ModelHealthView['status'];
  cost_per_1k_tokens: number;
  context_window: number;
  tags: string[];
  description: string;
}

export interface ModelStatusView extends ModelView {
  latency_ms: number | null;
  cooldown_seconds: number;
  last_error: string | null;
  last_checked_at: string | null;
}

export interface ModelTestResult {
  model_id: string;
  available: boolean;
  status: ModelHealthView['status'];
  latency_ms: number | null;
  error: string | null;
  tested_at: string;
}

export class ModelsService {
  private readonly byId: Map<string, ModelEntry>;

  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'config' | 'adapters' | 'health' | 'executor' | 'audit'>,
    private readonly access: BrokerAccess,
  ) {
    this.byId = new Map(deps.config.catalogue.models.map((m) => [m.id, m]));
  }

  /** The catalogue's model with this id; 404 (id echoed redacted) when there is none. */
  find(id: string): ModelEntry {
    const m = this.byId.get(id);
    if (!m) throw new NotFoundError(`Model '${echo(id)}' not found`);
    return m;
  }

  async models(caller: Caller): Promise<{ models: ModelView[] }> {
    await this.access.tenantOf(caller, 'read', 'ai.models.list');
    return { models: this.deps.config.catalogue.models.map((m) => this.view(m)) };
  }

  async modelStatus(caller: Caller, id: string): Promise<ModelStatusView> {
    await this.access.tenantOf(caller, 'read', 'ai.models.status');
    const m = this.find(id);
    const h = this.deps.health.view(m);
    return {
      ...this.view(m),
      latency_ms: h.latencyMs,
      cooldown_seconds: h.cooldownSeconds,
      last_error: h.lastError,
      last_checked_at: h.lastCheckedAt,
    };
  }

  /** A real one-token call to the model (and a probe of its provider): is it answering now? */
  async testModel(caller: Caller, id: string): Promise<ModelTestResult> {
    const tenantId = await this.access.tenantOf(caller, 'write', 'ai.models.test');
    const m = this.find(id);
    const adapter = this.deps.adapters[m.provider];
    const testedAt = new Date().toISOString();
    if (!adapter.configured())
      return {
        model_id: m.id,
        available: false,
        status: 'unconfigured',
        latency_ms: null,
        error: 'unconfigured',
        tested_at: testedAt,
      };
    const started = performance.now();
    let error: string | null = null;
    let tokens = { prompt: 0, completion: 0 };
    try {
      const r = await this.deps.executor.complete(
        { candidates: [m], skipped: [] },
        { messages: [{ role: 'user', content: 'Reply with OK.' }], maxTokens: 1 },
      );
      tokens = { prompt: r.result.promptTokens, completion: r.result.completionTokens };
    } catch (err) {
      if (!(err instanceof AllModelsFailedError)) throw err;
      error = err.attempts.at(-1)?.outcome ?? 'unavailable';
    }
    const latency = performance.now() - started;
    // A test spends tokens like any call, so it is in the tenant's usage (operation 'model-test').
    const event = usageEvent(
      'model-test',
      error ? 'failed' : 'ok',
      error ? null : m,
      tokens.prompt,
      tokens.completion,
      latency,
      [],
      { input: {}, output: {} },
      'off',
    );
    await this.deps.audit.record(caller, tenantId, event);
    return {
      model_id: m.id,
      available: error === null,
      status: this.deps.health.status(m),
      latency_ms: error ? null : Math.round(latency * 100) / 100,
      error,
      tested_at: testedAt,
    };
  }

  private view(m: ModelEntry): ModelView {
    return {
      id: m.id,
      provider: m.provider,
      status: this.deps.health.status(m),
      cost_per_1k_tokens: m.costPer1kTokens,
      context_window: m.contextWindow,
      tags: m.tags,
      description: m.description,
    };
  }
}
