// Running a model call through the shared pipeline (inference.pipeline.ts): one answer, a stream,
// or one of the broker's own tasks (assist.service.ts). Each records its usage in the ledger and
// charges the tenant's budget with the tokens the provider reported.
import { performance } from 'node:perf_hooks';
import type { Caller } from '../../platform/auth/caller';
import { InputError } from '../../platform/errors/domain-errors';
import type { Forwarding, InferenceInput, InferenceResult } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { Grounding, InferencePipeline, Prepared } from './inference.pipeline';
import type { ModelEntry } from './model-catalogue';
import type { Attempt } from './model-router';
import type { RedactionSession } from './pii-guard';
import type { StreamEvent } from './providers/provider';
import { StreamRedactor } from './stream-redactor';
import { revealOwnTokens } from './token-reveal';
import { cost, usageEvent } from './usage-event';

export interface StreamStart {
  modelUsed: string;
  correlationId: string;
  attempts: Attempt[];
  ragChunksUsed: number;
  sources: string[];
  ragUnavailable: boolean;
}

export interface InferenceStream {
  start: StreamStart;
  pieces: AsyncIterable<string>;
  done: () => InferenceResult;
}

export interface TaskSessions {
  input: RedactionSession;
  output: RedactionSession;
}

export interface TaskResult {
  text: string;
  model: ModelEntry;
  tokens: number;
  attempts: Attempt[];
}

interface StreamUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Latency as reported: milliseconds to two decimals. */
const ms = (latencyMs: number) => Math.round(latencyMs * 100) / 100;

export class InferenceService {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'guard' | 'executor' | 'tokens' | 'audit' | 'limits'>,
    private readonly pipeline: InferencePipeline,
  ) {}

  /** One answer. `tenantId`: already resolved by the Idempotency-Key path (idempotent-inference.ts). */
  async infer(caller: Caller, input: InferenceInput, forward: Forwarding, tenantId?: string): Promise<InferenceResult> {
    const p = await this.pipeline.prepare(caller, input, 'ai.inference', tenantId);
    await this.pipeline.admit(p);
    const started = performance.now();
    const prompt = p.input.text(p.prompt);
    const g = await this.pipeline.ground(caller, p, prompt, forward);
    const request = this.pipeline.request(p, prompt, g);
    const plan = this.pipeline.plan(p, request);
    // Tokenize mode: the prompt's tokens are stored before the prompt leaves the platform.
    await this.deps.tokens.save(p.tenantId, p.input.minted());
    let execution;
    try {
      execution = await this.deps.executor.complete(plan, request);
    } catch (err) {
      return this.pipeline.failed(caller, p, 'inference', err, started, g);
    }
    let response = p.output.text(execution.result.text);
    let revealed = 0;
    if (p.detokenize) ({ text: response, revealed } = revealOwnTokens(p.input, response));
    const latencyMs = performance.now() - started;
    const { model, result, attempts } = execution;
    const tokens = result.promptTokens + result.completionTokens;
    const f = this.pipeline.finish(p, g);
    const event = usageEvent(
      'inference',
      'ok',
      model,
      result.promptTokens,
      result.completionTokens,
      latencyMs,
      attempts,
      f.redactions,
      p.input.mode,
      Object.assign({ detokenized: revealed }, f.extra),
    );
    await this.deps.audit.record(caller, p.tenantId, event);
    this.deps.limits.spent(p.tenantId, tokens);
    return {
      response,
      modelUsed: model.id,
      provider: model.provider,
      tokensUsed: tokens,
      promptTokens: result.promptTokens,
      completionTokens: result.completionTokens,
      cost: cost(model, tokens),
      latencyMs: ms(latencyMs),
      ragChunksUsed: g.chunks.length,
      sources: f.sources,
      ragUnavailable: g.ragUnavailable,
      correlationId: caller.correlationId,
      attempts,
      redactions: f.redactions,
      template: p.template,
    };
  }

  /**
   * Inference as a stream: `start` is known once a model has begun answering (failover happens
   * before that); `pieces` yields redacted text; `done` resolves with the full result once the
   * stream ends and its usage is recorded.
   */
  async inferenceStream(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<InferenceStream> {
    const p = await this.pipeline.prepare(caller, input, 'ai.inference');
    if (p.detokenize)
      throw InputError.of(['detokenize'], 'detokenize applies to answers that are not streamed', 'value_error');
    await this.pipeline.admit(p);
    const started = performance.now();
    const prompt = p.input.text(p.prompt);
    const g = await this.pipeline.ground(caller, p, prompt, forward);
    const request = this.pipeline.request(p, prompt, g);
    const plan = this.pipeline.plan(p, request);
    await this.deps.tokens.save(p.tenantId, p.input.minted());
    let opened;
    try {
      opened = await this.deps.executor.stream(plan, request);
    } catch (err) {
      return this.pipeline.failed(caller, p, 'inference', err, started, g);
    }
    const { model, attempts, events } = opened;
    const f0 = this.pipeline.finish(p, g);
    let result: InferenceResult | undefined;
    const settle = async (text: string, usage: StreamUsage, status: 'ok' | 'failed') => {
      const latencyMs = performance.now() - started;
      const f = this.pipeline.finish(p, g);
      const tokens = usage.promptTokens + usage.completionTokens;
      const event = usageEvent(
        'inference',
        status,
        model,
        usage.promptTokens,
        usage.completionTokens,
        latencyMs,
        attempts,
        f.redactions,
        p.input.mode,
        f.extra,
      );
      await this.deps.audit.record(caller, p.tenantId, event);
      this.deps.limits.spent(p.tenantId, tokens);
      result = {
        response: text,
        modelUsed: model.id,
        provider: model.provider,
        tokensUsed: tokens,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cost: cost(model, tokens),
        latencyMs: ms(latencyMs),
        ragChunksUsed: g.chunks.length,
        sources: f.sources,
        ragUnavailable: g.ragUnavailable,
        correlationId: caller.correlationId,
        attempts,
        redactions: f.redactions,
        template: p.template,
      };
    };
    return {
      start: {
        modelUsed: model.id,
        correlationId: caller.correlationId,
        attempts,
        ragChunksUsed: g.chunks.length,
        sources: f0.sources,
        ragUnavailable: g.ragUnavailable,
      },
      pieces: this.pieces(p, events, settle),
      done: () => result!,
    };
  }

  /** One model call for the broker's own tasks (explain, generate-workflow), audited like inference. */
  async task(
    caller: Caller,
    operation: string,
    tenantId: string,
    prompt: string,
    offline: () => string,
    maxTokens: number,
    session: TaskSessions,
  ): Promise<TaskResult> {
    const p = this.pipeline.forTask(tenantId, prompt, maxTokens, session);
    await this.pipeline.admit(p);
    const started = performance.now();
    const g: Grounding = { chunks: [], ragUnavailable: false };
    const request = this.pipeline.request(p, prompt, g, offline);
    const plan = this.pipeline.plan(p, request);
    await this.deps.tokens.save(tenantId, p.input.minted());
    let execution;
    try {
      execution = await this.deps.executor.complete(plan, request);
    } catch (err) {
      return this.pipeline.failed(caller, p, operation, err, started, g);
    }
    const text = p.output.text(execution.result.text);
    const { model, result, attempts } = execution;
    const f = this.pipeline.finish(p, g);
    const event = usageEvent(
      operation,
      'ok',
      model,
      result.promptTokens,
      result.completionTokens,
      performance.now() - started,
      attempts,
      f.redactions,
      p.input.mode,
    );
    await this.deps.audit.record(caller, tenantId, event);
    this.deps.limits.spent(tenantId, result.promptTokens + result.completionTokens);
    return { text, model, tokens: result.promptTokens + result.completionTokens, attempts };
  }

  /** The guard's sessions for a task's own input and output. */
  sessions(tenantId: string): TaskSessions {
    return { input: this.deps.guard.session(tenantId), output: this.deps.guard.session(tenantId) };
  }

  /**
   * The provider's events as redacted text (stream-redactor.ts: a value can arrive split across
   * pieces). Usage is recorded however the stream ends, hence `finally`: a stream that fails midway
   * is in the ledger too, as failed.
   */
  private async *pieces(
    p: Prepared,
    events: AsyncIterable<StreamEvent>,
    settle: (text: string, usage: StreamUsage, status: 'ok' | 'failed') => Promise<void>,
  ): AsyncIterable<string> {
    const redactor = new StreamRedactor({ redact: (t) => p.output.text(t), preview: (t) => p.output.preview(t) });
    let text = '';
    let usage = { promptTokens: 0, completionTokens: 0 };
    let status: 'ok' | 'failed' = 'ok';
    try {
      for await (const e of events) {
        if (e.type === 'usage') usage = { promptTokens: e.promptTokens, completionTokens: e.completionTokens };
        else {
          const safe = redactor.push(e.text);
          if (safe) {
            text += safe;
            yield safe;
          }
        }
      }
      const rest = redactor.end();
      if (rest) {
        text += rest;
        yield rest;
      }
    } catch (err) {
      status = 'failed';
      throw err;
    } finally {
      await settle(text, usage, status);
    }
  }
}
