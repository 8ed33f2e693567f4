// Runs one leaf step (action, validation, ai, dataflow) or a compensation: picks the action from
// the catalogue, calls the validation service, the AI broker or DataFlow, and turns every error
// into a StepFailure that says whether a retry may help.
import type { AiBrokerClient } from '../../platform/clients/ai-broker.client';
import type { DataflowClient } from '../../platform/clients/dataflow.client';
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
    private readonly dataflow: Pick<DataflowClient, 'run'>,
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
      case 'dataflow':
        return this.runDataflow(r);
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

  /**
   * POST /api/dataflow/runs of DataFlow (trigger `workflow_step`) with the step's idempotency key:
   * the same key is the same run, so a retried or resumed step waits on (or resumes) the run it
   * started instead of starting another. Breaks are not a failure: the step completes with the
   * counts, and decisions branch on them (`<output_field>.outcome`, `.breaks`, `.discrepancies`).
   * A pack that cannot run (unknown, uncertified, not declaring the trigger, its own error: 4xx)
   * fails the step for good; no answer or a 5xx is retried.
   */
  private async runDataflow(r: LeafRun): Promise<unknown> {
    const s = r.step;
    let run;
    try {
      run = await this.dataflow.run(
        r.call,
        {
          pack_id: s.dataflow_pack_id!,
          version: s.dataflow_pack_version,
          idempotency_key: r.idempotencyKey,
          trigger: 'workflow_step',
        },
        { timeoutMs: (s.timeout_seconds ?? 300) * 1000 },
      );
    } catch (err) {
      if (err instanceof ServiceCallError)
        throw new StepFailure(`step '${s.step}': DataFlow: ${err.message}${detailOf(err.body)}`, err.retryable);
      throw new StepFailure(`step '${s.step}': ${(err as Error).message}`, true);
    }
    if (!run.result) throw new StepFailure(`step '${s.step}': DataFlow run ${run.run_id} is still ${run.status}`, true);
    const recs = run.result.reconciliations.map((x) => ({
      name: x.name,
      result: x.result,
      matched: x.matched.count,
      unmatched_left: x.unmatched_left.count,
      unmatched_right: x.unmatched_right.count,
      breaks: x.breaks.count,
    }));
    const sum = (k: 'matched' | 'unmatched_left' | 'unmatched_right' | 'breaks') => recs.reduce((n, x) => n + x[k], 0);
    return {
      run_id: run.run_id,
      pack_id: run.pack_id,
      pack_version: run.pack_version,
      outcome: run.result.outcome,
      matched: sum('matched'),
      unmatched_left: sum('unmatched_left'),
      unmatched_right: sum('unmatched_right'),
      breaks: sum('breaks'),
      discrepancies: sum('breaks') + sum('unmatched_left') + sum('unmatched_right'),
      reconciliations: recs,
      evidence_sha256: run.result.evidence_sha256,
    };
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
