// Compensation (docs/workflow.md, "Compensation"): after a failure or a rejection, every completed
// step that names a compensation is undone, in reverse completion order. Each compensation is
// retried on its own timer, then parked for an operator; the saga ends `failed` or `rejected`
// with a record of what was undone and what was parked.
import type { Outcome, RunScope } from './execution.deps';
import type { CompensationRecord } from './workflow.types';

/** The saga turns to compensating (persisted first), then compensates as far as it can now. */
export async function startCompensation(run: RunScope, reason: 'failure' | 'rejection'): Promise<void> {
  const { journal } = run;
  const compensation: CompensationRecord = { reason, status: 'compensating', steps: [], parked: [] };
  await journal.write((q) =>
    journal.transition(q, {
      event: 'workflow.compensating',
      detail: { reason },
      patch: { status: 'compensating', compensation },
    }),
  );
  journal.execution = { ...journal.execution, status: 'compensating', compensation };
  const outcome = await compensate(run);
  if (outcome === 'suspended') await journal.release();
}

/** Compensates completed steps in reverse completion order; each retried, then parked. */
export async function compensate(run: RunScope): Promise<Outcome> {
  const { journal } = run;
  const { config, runner } = run.deps;
  const execution = journal.execution;
  const comp: CompensationRecord = execution.compensation ?? {
    reason: 'failure',
    status: 'compensating',
    steps: [],
    parked: [],
  };
  const due = [...journal.records.values()]
    .filter(
      (r) =>
        r.status === 'completed' &&
        r.compensation &&
        r.compensationStatus !== 'compensated' &&
        r.compensationStatus !== 'parked',
    )
    .sort((a, b) => b.completedSeq! - a.completedSeq!);
  for (const r of due) {
    const step = run.steps.get(r.path)!;
    const attempts = r.compensationAttempts + 1;
    await journal.commit(
      { ...r, compensationStatus: 'compensating', compensationAttempts: attempts },
      { event: 'step.compensating', step: r.step, detail: { attempt: attempts } },
    );
    try {
      await runner.compensate(
        {
          tenantId: execution.tenantId,
          workflowId: execution.id,
          step,
          idempotencyKey: r.idempotencyKey,
          data: run.data(),
          call: await run.callContext(),
        },
        r.output,
      );
    } catch (err) {
      const message = (err as Error).message;
      if (attempts < config.compensationMaxAttempts) {
        const delay = config.retryBaseMs * 2 ** (attempts - 1);
        journal.retryAfterMs = delay;
        await journal.commit(
          { ...journal.records.get(r.path)!, compensationError: message },
          {
            event: 'step.compensation_retrying',
            step: r.step,
            detail: { attempt: attempts, retry_in_ms: delay, error: message },
          },
        );
        return 'suspended';
      }
      comp.parked.push(r.step);
      await journal.commit(
        { ...journal.records.get(r.path)!, compensationStatus: 'parked', compensationError: message },
        {
          event: 'step.compensation_parked',
          step: r.step,
          detail: { attempts, error: message },
          patch: { compensation: comp },
        },
      );
      continue;
    }
    comp.steps.push(r.step);
    await journal.commit(
      {
        ...journal.records.get(r.path)!,
        compensationStatus: 'compensated',
        compensationError: null,
        compensatedAt: new Date().toISOString(),
      },
      {
        event: 'step.compensated',
        step: r.step,
        patch: { compensation: comp },
      },
    );
  }
  const status = comp.reason === 'rejection' ? 'rejected' : 'failed';
  const final: CompensationRecord = { ...comp, status: comp.parked.length > 0 ? 'parked' : 'completed' };
  await journal.end(status, `workflow.${status}`, { compensation: final });
  return 'done';
}
