// The actions a pack's `action` and `compensation` may name (docs/workflow.md, "Action
// catalogue"). Each receives the step's idempotency key and must act at most once per key: the
// executor calls again with the same key after a crash or a retry. `http` passes it on as the
// `Idempotency-Key` header, so the callee can do the same.
import type { ServiceCallContext } from '../../platform/clients/service-request';
import { WORKFLOW_NOTIFICATION } from '../../platform/contracts/workflow.events';
import type { ContractBus } from '../../platform/events/contract-bus';
import type { PackStep } from './workflow.types';

/** A step failed; `retryable` says whether trying again may help (an unreachable callee, a 5xx). */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface ActionInput {
  tenantId: string;
  workflowId: string;
  step: PackStep;
  idempotencyKey: string;
  /** The request payload and the outputs of earlier steps (`output_field`s). */
  data: Record<string, unknown>;
  call: ServiceCallContext;
  /** For a compensation: what the step it undoes returned. */
  undoing?: { output: unknown };
}

export interface ActionEnvironment {
  httpAllowedHosts: string[] | '*';
  httpTimeoutMs: number;
  /** Publishes on the bus by contract (platform/contracts). */
  publish: ContractBus['publish'];
}

export type Action = (input: ActionInput, env: ActionEnvironment) => Promise<unknown>;

const params = (input: ActionInput): Record<string, unknown> => input.step.parameters ?? {};

function hostAllowed(url: URL, allowed: string[] | '*'): boolean {
  if (allowed === '*') return true;
  return allowed.includes(url.host.toLowerCase()) || allowed.includes(url.hostname.toLowerCase());
}

/** An HTTP call with the idempotency key; 5xx, 408, 429 and no answer are retryable failures, other 4xx are not. */
async function callHttp(
  input: ActionInput,
  env: ActionEnvironment,
  target: { url: unknown; method: unknown; body: unknown },
  key: string,
): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(String(target.url));
  } catch {
    throw new StepFailure(`step '${input.step.step}': parameters.url is not a URL`, false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StepFailure(`step '${input.step.step}': only http and https URLs are called`, false);
  if (!hostAllowed(url, env.httpAllowedHosts))
    throw new StepFailure(`step '${input.step.step}': host ${url.host} is not in WORKFLOW_HTTP_ALLOWED_HOSTS`, false);
  const method = typeof target.method === 'string' ? target.method.toUpperCase() : 'POST';
  const hasBody = !['GET', 'HEAD', 'DELETE'].includes(method);
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        'idempotency-key': key,
        'x-workflow-id': input.workflowId,
        'x-tenant-id': input.tenantId,
        ...(input.call.correlationId ? { 'x-correlation-id': input.call.correlationId } : {}),
      },
      body: hasBody
        ? JSON.stringify(target.body ?? { workflow_id: input.workflowId, step: input.step.step })
        : undefined,
      signal: AbortSignal.timeout((input.step.timeout_seconds ?? 0) * 1000 || env.httpTimeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    throw new StepFailure(`step '${input.step.step}': ${url.origin} unreachable (${(err as Error).message})`, true);
  }
  const text = await res.text();
  if (!res.ok) {
    const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
    throw new StepFailure(
      `step '${input.step.step}': ${method} ${url.origin}${url.pathname} answered ${res.status}`,
      retryable,
    );
  }
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return { status: res.status };
  }
}

export const ACTIONS: Readonly<Record<string, Action>> = {
  /** Nothing; the step's output is null. */
  noop: async () => null,
  /** Keeps a note of what was done (the built-in packs' steps and their compensations). */
  record: async (input) => ({
    recorded: params(input).note ?? input.step.step,
    undoing: input.undoing ? true : undefined,
  }),
  /** Outputs `parameters.value` (kept under `output_field` for later steps and decisions). */
  set: async (input) => params(input).value ?? null,
  /**
   * Calls an HTTP endpoint: `parameters.url`, `method` (POST), `body` (JSON). As a compensation it
   * calls `parameters.compensation_url` (default: the same URL) with `compensation_method`
   * (default DELETE), key `<step key>:compensate`.
   */
  http: async (input, env) => {
    const p = params(input);
    if (input.undoing) {
      return callHttp(
        input,
        env,
        { url: p.compensation_url ?? p.url, method: p.compensation_method ?? 'DELETE', body: p.compensation_body },
        input.idempotencyKey,
      );
    }
    return callHttp(input, env, { url: p.url, method: p.method, body: p.body }, input.idempotencyKey);
  },
  /** Fails: `parameters.message`, `parameters.retryable` (false). For exercising compensation. */
  fail: async (input) => {
    const p = params(input);
    throw new StepFailure(
      typeof p.message === 'string' ? p.message : `step '${input.step.step}' failed as the pack asks`,
      p.retryable === true,
    );
  },
  /** Publishes `workflow.notification` on the event bus ({tenant_id, workflow_id, step, message}). */
  notify: async (input, env) => {
    const message = params(input).message ?? input.step.step;
    await env.publish(WORKFLOW_NOTIFICATION, {
      tenant_id: input.tenantId,
      workflow_id: input.workflowId,
      step: input.step.step,
      message,
      idempotency_key: input.idempotencyKey,
    });
    return { notified: true };
  },
};

export const ACTION_NAMES = Object.keys(ACTIONS);
