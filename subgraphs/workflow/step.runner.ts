// Runs one leaf step (action, validation, ai) or a compensation: picks the action from the
// catalogue, calls the validation service or the AI broker, and turns every error into a
// StepFailure that says whether a retry may help.
import type { AiBrokerClient } from '../../platform/clients/ai-broker.client';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import type { ValidationClient } from '../../platform/clients/validation.client';
import { ACTIONS, StepFailure, type ActionEnvironment } from './action.catalogue';
import { inferenceRequestOf } from './ai.request';
import { readPath } from './workflow.data';
import type { PackStep } from './workflow.types';
import { workflowStepTimer } from '../../platform/telemetry/domain-metrics';

export interface LeafRun {
  tenantId: string;
  workflowId: string;
  step: PackStep;
  idempotencyKey: string;
  data: Record<string, unknown>;
  call: ServiceCallContext;
}

export class StepRunner {
  constructor(
    private readonly validation: Pick<ValidationClient, 'validate'>,
    private readonly env: ActionEnvironment,
    private readonly ai: Pick<AiBrokerClient, 'inference'>,
  ) {}

  async run(r: LeafRun): Promise<unknown> {
    const done = workflowStepTimer(r.step.type); // workflow_step_duration_seconds
    return this.leaf(r).then(
      (out) => (done('ok'), out),
      (err: unknown) => {
        done('error');
        throw err;
      },
    );
  }

  private async leaf(r: LeafRun): Promise<unknown> {
    switch (r.step.type) {
      case 'action':
        return this.action(r.step.action!, r);
      case 'validation':
        return this.validate(r);
      case 'ai':
        return this.infer(r);
      default:
        throw new StepFailure(`step '${r.step.step}': a ${r.step.type} step is not a leaf`, false);
    }
  }

  /** The step's compensation (an action name), with the output of the step it undoes. */
  async compensate(r: LeafRun, output: unknown): Promise<unknown> {
    return this.action(r.step.compensation!, { ...r, idempotencyKey: `${r.idempotencyKey}:compensate` }, output);
  }

  private async action(name: string, r: LeafRun, undoing?: unknown): Promise<unknown> {
    const action = ACTIONS[name];
    if (!action) throw new StepFailure(`step '${r.step.step}': unknown action '${name}'`, false);
    try {
      return await action({ ...r, undoing: arguments.length > 2 ? { output: undoing } : undefined }, this.env);
    } catch (err) {
      if (err instanceof StepFailure) throw err;
      throw new StepFailure(`step '${r.step.step}': ${(err as Error).message}`, true);
    }
  }

  /**
   * POST /api/ai/inference of the AI broker with the caller's (or the service's) token and the
   * step's idempotency key as `Idempotency-Key`. No answer, a 5xx (every model failed) or a 429
   * (the tenant's rate limit or budget) is retried; a 4xx (unknown template, missing variable,
   * prompt too long) fails the step for good.
   */
  private async infer(r: LeafRun): Promise<unknown> {
    const s = r.step;
    try {
      const res = await this.ai.inference(r.call, inferenceRequestOf(s, r.data), {
        idempotencyKey: r.idempotencyKey,
        timeoutMs: (s.timeout_seconds ?? 120) * 1000,
      });
      return {
        response: res.response,
        model_used: res.model_used,
        provider: res.provider,
        tokens_used: res.tokens_used,
        correlation_id: res.correlation_id,
        template: res.template ?? null,
      };
    } catch (err) {
      if (err instanceof ServiceCallError) {
        throw new StepFailure(`step '${s.step}': AI broker: ${err.message}${detailOf(err.body)}`, err.retryable);
      }
      throw new StepFailure(`step '${s.step}': ${(err as Error).message}`, true);
    }
  }

  private async validate(r: LeafRun): Promise<unknown> {
    const s = r.step;
    const payload = s.input_field ? readPath(r.data, s.input_field) : r.data;
    try {
      const res = await this.validation.validate(
        r.call,
        {
          rule_pack_id: s.rule_pack_id!,
          rule_pack_version: s.rule_pack_version,
          payload,
          strict_mode: s.strict_mode ?? false,
          validation_type: 'workflow',
          metadata: { workflow_id: r.workflowId, step: s.step, idempotency_key: r.idempotencyKey },
        },
        { timeoutMs: (s.timeout_seconds ?? 30) * 1000 },
      );
      const out = {
        valid: res.result.valid,
        rule_pack_id: res.rule_pack_id,
        rule_pack_version: res.rule_pack_version,
        errors: res.result.errors.length,
        warnings: res.result.warnings.length,
      };
      if (!res.result.valid)
        throw new StepFailure(
          `step '${s.step}': validation with rule pack '${s.rule_pack_id}' failed (${out.errors} error(s), ${out.warnings} warning(s))`,
          false,
        );
      return out;
    } catch (err) {
      if (err instanceof StepFailure) throw err;
      if (err instanceof ServiceCallError) {
        const detail = (err.body as { detail?: unknown } | undefined)?.detail;
        throw new StepFailure(
          `step '${s.step}': validation service: ${err.message}${typeof detail === 'string' ? ` (${detail})` : ''}`,
          err.retryable,
        );
      }
      throw new StepFailure(`step '${s.step}': ${(err as Error).message}`, true);
    }
  }
}

/** The callee's `{detail}` as a suffix: a string, or a 503's `{message}`, or a 422's first `msg`. */
function detailOf(body: unknown): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return ` (${detail})`;
  if (Array.isArray(detail) && typeof (detail[0] as { msg?: unknown })?.msg === 'string')
    return ` (${(detail[0] as { msg: string }).msg})`;
  if (detail && typeof (detail as { message?: unknown }).message === 'string')
    return ` (${(detail as { message: string }).message})`;
  return '';
}
