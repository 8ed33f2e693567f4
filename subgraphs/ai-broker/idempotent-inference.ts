// POST /api/ai/inference with an Idempotency-Key: a retried request (same key, same body) is
// answered with the first answer instead of running the model again (docs/ai-broker.md):
// 409 while the first is still running, 422 when the key came with another body. An answer
// with revealed values (detokenize) is never stored, so such a request runs each time.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Caller } from '../../platform/auth/caller';
import { ConflictError, InputError } from '../../platform/errors/domain-errors';
import type { Forwarding, InferenceInput, InferenceResult } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import type { InferenceService } from './inference.service';

/** How long an answer given under an Idempotency-Key is replayed. */
const REPLAY_MS = 24 * 3600_000;

export class IdempotentInference {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'config' | 'replies'>,
    private readonly access: BrokerAccess,
    private readonly service: InferenceService,
  ) {}

  async answer(caller: Caller, input: InferenceInput, forward: Forwarding = {}): Promise<InferenceResult> {
    const key = forward.idempotencyKey;
    if (key === undefined || input.detokenize === true) return this.service.infer(caller, input, forward);
    if (key.length === 0 || key.length > 255 || /[^\x21-\x7e]/.test(key)) {
      throw InputError.of(['idempotencyKey'], 'An Idempotency-Key is 1-255 visible ASCII characters', 'value_error');
    }
    const tenantId = await this.access.tenantOf(caller, 'write', 'ai.inference');
    // The same body in any key order is the same request (canonical JSON).
    const requestHash = createHash('sha256')
      .update(canonicalize(input) ?? '')
      .digest('hex');
    // A claim outlives the longest answer: every model's timeout, as failover may try each.
    const runningMs =
      this.deps.config.requestTimeoutMs * Math.max(1, this.deps.config.catalogue.models.length) + 30_000;
    const claim = await this.deps.replies.claim(tenantId, key, requestHash, runningMs);
    if (claim.state === 'done') return { ...claim.response, replayed: true };
    if (claim.state === 'running')
      throw new ConflictError('A request with this Idempotency-Key is still being answered; retry shortly');
    if (claim.state === 'other-request')
      throw InputError.of(['idempotencyKey'], 'This Idempotency-Key was used with a different request', 'value_error');
    try {
      const result = await this.service.infer(caller, input, forward, tenantId);
      await this.deps.replies.complete(tenantId, key, result, REPLAY_MS);
      return result;
    } catch (err) {
      // A failed request frees its key: the retry runs the model afresh.
      await this.deps.replies.release(tenantId, key).catch(() => undefined);
      throw err;
    }
  }
}
