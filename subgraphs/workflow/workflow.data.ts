// The data later steps see: a copy of the request payload with each completed step's output
// written at its `output_field` (dotted path), in completion order. Derived from the step
// records, never kept beside them, so concurrent steps of a parallel group cannot overwrite each
// other's outputs. And the idempotency key template, and the pack's steps by path.
import type { PackStep, StepRecord } from './workflow.types';

const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

export function readPath(data: unknown, path: string): unknown {
  let cur: unknown = data;
  for (const part of path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean)) {
    if (cur === null || typeof cur !== 'object' || UNSAFE.has(part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function writePath(data: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean);
  if (parts.length === 0 || parts.some((p) => UNSAFE.has(p))) return;
  let cur = data;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    cur = cur[part] =
      next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
  }
  cur[parts.at(-1)!] = value;
}

export function stepData(
  payload: Record<string, unknown>,
  steps: Map<string, PackStep>,
  records: Iterable<StepRecord>,
): Record<string, unknown> {
  const data: Record<string, unknown> = { ...payload };
  const done = [...records]
    .filter((r) => r.status === 'completed' && r.completedSeq !== null)
    .sort((a, b) => a.completedSeq! - b.completedSeq!);
  for (const r of done) {
    const field = steps.get(r.path)?.output_field;
    if (field) writePath(data, field, r.output);
  }
  return data;
}

/** The key an action receives: the pack's template (`{workflow_id}`, `{tenant_id}`, `{step}`, `{payload.x}`) or `<workflow_id>:<step>`. */
export function idempotencyKeyOf(
  step: PackStep,
  ids: { workflowId: string; tenantId: string },
  payload: Record<string, unknown>,
): string {
  if (!step.idempotency_key) return `${ids.workflowId}:${step.step}`;
  return step.idempotency_key.replace(/\{([A-Za-z0-9_.]+)\}/g, (whole, name: string) => {
    if (name === 'workflow_id') return ids.workflowId;
    if (name === 'tenant_id') return ids.tenantId;
    if (name === 'step') return step.step;
    if (name.startsWith('payload.')) {
      const v = readPath(payload, name.slice('payload.'.length));
      return v === undefined || v === null ? '' : String(v);
    }
    return whole;
  });
}

/** The pack's steps by path: `0`, `1`, nested `2.b0.1` (decision branch 0), `2.o.0` (otherwise), `3.p1` (parallel member). */
export function stepsByPath(steps: PackStep[]): Map<string, PackStep> {
  const into = new Map<string, PackStep>();
  const add = (s: PackStep, path: string) => {
    into.set(path, s);
    s.branches?.forEach((b, k) => b.steps.forEach((c, j) => add(c, `${path}.b${k}.${j}`)));
    s.otherwise?.forEach((c, j) => add(c, `${path}.o.${j}`));
    if (s.type === 'parallel') s.steps?.forEach((m, i) => add(m, `${path}.p${i}`));
  };
  steps.forEach((s, j) => add(s, `${j}`));
  return into;
}
