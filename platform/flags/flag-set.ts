// Feature flags in flagd's flag-definition format (https://flagd.dev/reference/flag-definitions/),
// evaluated by `@openfeature/flagd-core` (JSON Logic targeting, `fractional`, `sem_ver`), and
// the OFREP answer shapes. Shared by the config service (its OFREP endpoint) and the in-process
// client (platform/clients/config-flags.client.ts), so a flag evaluates the same on both sides.
//
// Evaluation limits: a flag set is parsed with flagd's strict schema validation, and every
// flag's targeting rule may hold at most MAX_TARGETING_NODES JSON Logic nodes, so a rule cannot
// grow into an expensive evaluation; the nesting depth is bounded by the bundle's own limit.
// Evaluation errors (a rule that throws) answer the flag's error, never a crash.
import { FlagdCore, MemoryStorage } from '@openfeature/flagd-core';
import type { EvaluationContext, JsonValue, Logger } from '@openfeature/core';
import { AnswerMemo, UNKEYED } from './answer-memo';
import { targetingInputs } from './targeting-inputs';

export const FLAGS_NAMESPACE = 'flags';
export const MAX_TARGETING_NODES = 500;
/** Answers kept per flag (FlagSet's memo); a full memo starts again empty. */
export const MAX_MEMOISED = 4_096;

/** OFREP's success body (https://github.com/open-feature/protocol, evaluate a flag). */
export interface OfrepSuccess {
  key: string;
  /** Absent when the flag defers to the code default (flagd: no default variant). */
  value?: JsonValue;
  reason: string;
  variant?: string;
  metadata?: Record<string, unknown>;
}

/** OFREP's error body. */
export interface OfrepFailure {
  key: string;
  errorCode: 'FLAG_NOT_FOUND' | 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL';
  errorDetails?: string;
}

export type OfrepResult = OfrepSuccess | OfrepFailure;

/** A flag set that breaks flagd's format or the limits; `pointer` is into the flag set. */
export class FlagSetError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

const SILENT: Logger = { error() {}, warn() {}, info() {}, debug() {} };

function countNodes(value: unknown): number {
  let n = 0;
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    n += 1;
    if (typeof v === 'object' && v !== null) stack.push(...Object.values(v));
  }
  return n;
}

export class FlagSet {
  private readonly core: FlagdCore;
  /** Per flag whose rule reads only fixed context keys: its answers by their values. */
  private readonly memos = new Map<string, AnswerMemo<OfrepSuccess>>();
  private readonly answers = new Map<string, OfrepSuccess[]>();

  /**
   * Checks the limits of a flag set, or of a layer's patch to one (a suite, module or tenant layer
   * overriding a member of a platform flag): a `flags` object of objects, targeting rules within
   * MAX_TARGETING_NODES. Throws FlagSetError.
   */
  static checkLimits(content: unknown): void {
    const flags = (content as { flags?: unknown } | null)?.flags;
    if (typeof flags !== 'object' || flags === null || Array.isArray(flags))
      throw new FlagSetError('/flags', 'a flag set needs a `flags` object (flagd flag-definition format)');
    for (const [key, flag] of Object.entries(flags as Record<string, unknown>)) {
      if (typeof flag !== 'object' || flag === null || Array.isArray(flag))
        throw new FlagSetError(`/flags/${key}`, 'a flag is an object (or null to remove it)');
      const targeting = (flag as { targeting?: unknown }).targeting;
      if (targeting !== undefined && countNodes(targeting) > MAX_TARGETING_NODES)
        throw new FlagSetError(
          `/flags/${key}/targeting`,
          `targeting rule exceeds ${MAX_TARGETING_NODES} JSON Logic nodes (evaluation limit)`,
        );
    }
  }

  /** Throws FlagSetError when `content` is not a complete, valid flagd flag set within the limits. */
  constructor(content: unknown) {
    FlagSet.checkLimits(content);
    const storage = new MemoryStorage(SILENT);
    try {
      storage.setConfigurations(JSON.stringify(content), true);
    } catch (err) {
      throw new FlagSetError('/flags', `not a valid flagd flag set: ${(err as Error).message.slice(0, 300)}`);
    }
    this.core = new FlagdCore(storage, SILENT);
    for (const [key, flag] of Object.entries((content as { flags: Record<string, { targeting?: unknown }> }).flags)) {
      const inputs = flag?.targeting === undefined ? [] : targetingInputs(flag.targeting);
      if (inputs) this.memos.set(key, new AnswerMemo(inputs, MAX_MEMOISED));
    }
  }

  keys(): string[] {
    return [...this.core.getFlags().keys()];
  }

  /**
   * The flag's answer for `context`. A flag whose rule reads only fixed context keys answers
   * again from its memo for the same values there; the answer is shared, so it is frozen.
   */
  evaluate(key: string, context: EvaluationContext = {}): OfrepResult {
    const memo = this.memos.get(key);
    const known = memo ? memo.get(context) : UNKEYED;
    if (known === UNKEYED) return this.evaluateNow(key, context);
    if (known) return known;
    const answer = this.evaluateNow(key, context);
    // Failures are not kept: they are rare, and their details may name the context.
    if (isOfrepFailure(answer)) return answer;
    const shared = this.distinct(answer);
    memo!.set(context, shared);
    return shared;
  }

  /**
   * One frozen object per (flag, reason, variant): a flag's value and metadata follow from its
   * variant, so thousands of kept contexts hold a handful of answers between them.
   */
  private distinct(answer: OfrepSuccess): OfrepSuccess {
    const known = this.answers.get(answer.key) ?? [];
    const same = known.find((a) => a.reason === answer.reason && a.variant === answer.variant);
    if (same) return same;
    known.push(Object.freeze(answer));
    this.answers.set(answer.key, known);
    return answer;
  }

  private evaluateNow(key: string, context: EvaluationContext): OfrepResult {
    const flag = this.core.getFlag(key);
    if (!flag) return { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag '${key}' was not found` };
    try {
      const r = flag.evaluate(context, SILENT);
      if (r.errorCode) return { key, errorCode: 'GENERAL', errorDetails: r.errorMessage ?? String(r.errorCode) };
      return { key, value: r.value, reason: r.reason, variant: r.variant, metadata: r.flagMetadata };
    } catch (err) {
      return { key, errorCode: 'GENERAL', errorDetails: `evaluation failed: ${(err as Error).message.slice(0, 200)}` };
    }
  }

  evaluateAll(context: EvaluationContext = {}): OfrepResult[] {
    return this.keys().map((k) => this.evaluate(k, context));
  }
}

export const isOfrepFailure = (r: OfrepResult): r is OfrepFailure => 'errorCode' in r;
