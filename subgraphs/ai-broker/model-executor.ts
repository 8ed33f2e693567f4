// Runs a request on the planned models in order until one answers: each failure (error, timeout,
// 429, overload, refused key) is recorded with the model's health and in the attempts, and the
// next model is tried. When none answers: 503 listing every attempt. A stream fails over only
// before its first piece of text (after that the caller has part of an answer).
import { performance } from 'node:perf_hooks';
import { UnavailableError } from '../../platform/errors/domain-errors';
import type { ModelHealth } from './model-health';
import type { ModelEntry } from './model-catalogue';
import type { Attempt, RoutePlan } from './model-router';
import { providerErrorOf } from './providers/provider-errors';
import type { ChatRequest, ChatResult, ProviderAdapter, ProviderName, StreamEvent } from './providers/provider';

/** Every model failed or none could be tried: 503, with the attempts for the caller. */
export class AllModelsFailedError extends UnavailableError {
  constructor(readonly attempts: Attempt[]) {
    super(
      attempts.length === 0
        ? 'No model is available for this request'
        : `No model answered: ${attempts.map((a) => `${a.model} ${a.outcome}${a.reason ? ` (${a.reason})` : ''}`).join('; ')}`,
      5,
    );
  }
}

export interface Execution {
  model: ModelEntry;
  result: ChatResult;
  attempts: Attempt[];
  latencyMs: number;
}

export type ModelRequest = Omit<ChatRequest, 'model' | 'signal'>;

const round = (ms: number) => Math.round(ms * 100) / 100;

export class ModelExecutor {
  constructor(
    private readonly adapters: Record<ProviderName, ProviderAdapter>,
    private readonly health: ModelHealth,
    private readonly timeoutMs: number,
  ) {}

  async complete(plan: RoutePlan, request: ModelRequest): Promise<Execution> {
    const attempts: Attempt[] = [...plan.skipped];
    for (const model of plan.candidates) {
      // A timer cleared when the call settles, not AbortSignal.timeout: that one's timer stays
      // armed for the whole timeout after the call (at 2,000 calls/s, 60,000 live timers and
      // signals for the default 30 s), and costs more to create.
      const controller = new AbortController();
      const { signal } = controller;
      const timer = setTimeout(
        () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
        this.timeoutMs,
      );
      const started = performance.now();
      try {
        // Object.assign rather than `{ ...request, model, signal }`: Node 20 gave a spread followed by
        // more properties a slow path, ~3 us a call (docs/benchmarks.md, branch val, 2026-11-29).
        const call = Object.assign({}, request, { model: model.providerModel, signal });
        const result = await this.adapters[model.provider].complete(call);
        const latencyMs = performance.now() - started;
        this.health.recordSuccess(model, latencyMs);
        attempts.push({ model: model.id, provider: model.provider, outcome: 'ok', latency_ms: round(latencyMs) });
        return { model, result, attempts, latencyMs };
      } catch (err) {
        const failure = providerErrorOf(model.provider, err, signal);
        this.health.recordFailure(model, failure);
        attempts.push({
          model: model.id,
          provider: model.provider,
          outcome: failure.kind,
          latency_ms: round(performance.now() - started),
        });
      } finally {
        clearTimeout(timer);
      }
    }
    throw new AllModelsFailedError(attempts);
  }

  /**
   * Opens a stream on the first model that starts answering. The returned `events` continue that
   * model's stream; `first` holds what was read while deciding.
   */
  async stream(
    plan: RoutePlan,
    request: ModelRequest,
  ): Promise<{ model: ModelEntry; attempts: Attempt[]; events: AsyncIterable<StreamEvent>; started: number }> {
    const attempts: Attempt[] = [...plan.skipped];
    for (const model of plan.candidates) {
      const signal = AbortSignal.timeout(this.timeoutMs);
      const started = performance.now();
      const stream = this.adapters[model.provider].stream(
        Object.assign({}, request, { model: model.providerModel, signal }),
      );
      const iterator = stream[Symbol.asyncIterator]();
      try {
        const first = await iterator.next();
        attempts.push({
          model: model.id,
          provider: model.provider,
          outcome: 'ok',
          latency_ms: round(performance.now() - started),
        });
        const health = this.health;
        const events = (async function* () {
          if (!first.done) yield first.value;
          try {
            for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
            health.recordSuccess(model, performance.now() - started);
          } catch (err) {
            health.recordFailure(model, providerErrorOf(model.provider, err, signal));
            throw err;
          }
        })();
        return { model, attempts, events, started };
      } catch (err) {
        const failure = providerErrorOf(model.provider, err, signal);
        this.health.recordFailure(model, failure);
        attempts.push({
          model: model.id,
          provider: model.provider,
          outcome: failure.kind,
          latency_ms: round(performance.now() - started),
        });
      }
    }
    throw new AllModelsFailedError(attempts);
  }
}
