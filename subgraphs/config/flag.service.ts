// OFREP (the OpenFeature Remote Evaluation Protocol) over the caller's effective `flags`
// namespace: one flag, or every flag in bulk, evaluated by flagd's rules (platform/flags). The
// evaluation context's `targetingKey` buckets `fractional`; the tenant is added as `tenantId`
// so rules can target tenants.
import { createHash } from 'node:crypto';
import type { EvaluationContext } from '@openfeature/core';
import canonicalize from 'canonicalize';
import type { OfrepResult } from '../../platform/flags/flag-set';
import type { ConfigCaller } from './config.types';
import type { EffectiveService } from './effective.service';

export class FlagService {
  constructor(private readonly effective: EffectiveService) {}

  private async flagSet(caller: ConfigCaller, context: EvaluationContext) {
    const effective = await this.effective.effective(caller, {});
    const ctx: EvaluationContext = { ...context, tenantId: effective.tenantId };
    return { set: this.effective.flagSetOf(effective), ctx, seq: effective.seq };
  }

  async evaluate(caller: ConfigCaller, key: string, context: EvaluationContext): Promise<OfrepResult> {
    const { set, ctx } = await this.flagSet(caller, context);
    if (!set) return { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `flag '${key}' was not found` };
    return set.evaluate(key, ctx);
  }

  /**
   * Every flag, and an ETag (of the change-log position, tenant and context) so a client can skip
   * unchanged answers. When `ifNoneMatch` is that ETag, nothing is evaluated (`flags` null).
   */
  async evaluateAll(
    caller: ConfigCaller,
    context: EvaluationContext,
    ifNoneMatch?: string,
  ): Promise<{ flags: OfrepResult[] | null; etag: string }> {
    const { set, ctx, seq } = await this.flagSet(caller, context);
    const etag = `"${createHash('sha256')
      .update(`${seq}\u0000${canonicalize(ctx) ?? ''}`)
      .digest('base64url')}"`;
    if (ifNoneMatch === etag) return { flags: null, etag };
    return { flags: set ? set.evaluateAll(ctx) : [], etag };
  }
}
