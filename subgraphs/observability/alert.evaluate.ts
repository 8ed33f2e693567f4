// The pure part of alerting: a rule's value from the sample history, and the next state of an
// alert from its previous one, the condition and the silences. No clock, no I/O: the evaluator
// passes `now` in, so tests step time instead of sleeping.
import type { AlertRule, AlertState, Matchers, Silence } from './alert.types';
import { alertLabels } from './alert.types';
import type { SampleHistory } from './sample.history';

/** The series a rule reads: its matchers, plus its own tenant's label for a tenant-scoped rule. */
export function effectiveMatchers(rule: AlertRule, matchers: Matchers): Matchers {
  return rule.scope === 'tenant' ? { ...matchers, tenant: rule.tenantId } : matchers;
}

/** The rule's current value, or null when there is not enough data (no series, one sample, 0/0). */
export function ruleValue(rule: AlertRule, history: SampleHistory, now: number): number | null {
  const numerator = effectiveMatchers(rule, rule.matchers);
  const from = now - rule.windowSeconds * 1000;
  switch (rule.kind) {
    case 'threshold':
      return history.latestSum(rule.metric, numerator);
    case 'rate': {
      const inc = history.increase(rule.metric, numerator, from);
      return inc && inc.seconds > 0 ? inc.value / inc.seconds : null;
    }
    case 'ratio': {
      const top = history.increase(rule.metric, numerator, from);
      const bottom = history.increase(
        rule.denominatorMetric ?? rule.metric,
        effectiveMatchers(rule, rule.denominatorMatchers ?? {}),
        from,
      );
      return top && bottom && bottom.value > 0 ? top.value / bottom.value : null;
    }
  }
}

export function compare(value: number, op: AlertRule['op'], threshold: number): boolean {
  switch (op) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
  }
}

export function silenceFor(rule: AlertRule, silences: readonly Silence[], now: number): Silence | undefined {
  const labels = alertLabels(rule);
  return silences.find(
    (s) =>
      s.tenantId === rule.tenantId &&
      Date.parse(s.startsAt) <= now &&
      now < Date.parse(s.endsAt) &&
      Object.entries(s.matchers).every(([k, v]) => labels[k] === v),
  );
}

export type Notification = 'firing' | 'resolved' | null;

/**
 * The alert's next state and the notification it owes. Firing notifies once, unless a silence
 * holds it: then it notifies when the silence ends (at the next evaluation) if still firing.
 * Resolved notifies only when firing was notified, silenced or not, so a receiver told "firing"
 * is always told "resolved".
 */
export function nextState(
  rule: AlertRule,
  prev: AlertState | null,
  value: number | null,
  silences: readonly Silence[],
  now: number,
): { state: AlertState; notify: Notification } {
  const at = new Date(now).toISOString();
  const active = value !== null && compare(value, rule.op, rule.threshold);
  const base = {
    ruleId: rule.id,
    tenantId: rule.tenantId,
    value,
    evaluatedAt: at,
    resolvedAt: prev?.resolvedAt ?? null,
  };
  if (!active) {
    const wasFiring = prev?.state === 'firing';
    return {
      state: {
        ...base,
        state: 'inactive',
        activeSince: null,
        firedAt: prev?.firedAt ?? null,
        resolvedAt: wasFiring ? at : base.resolvedAt,
        notified: false,
        silencedBy: null,
      },
      notify: wasFiring && prev?.notified ? 'resolved' : null,
    };
  }
  const activeSince = prev && prev.state !== 'inactive' && prev.activeSince ? prev.activeSince : at;
  if (now - Date.parse(activeSince) < rule.forSeconds * 1000) {
    return {
      state: {
        ...base,
        state: 'pending',
        activeSince,
        firedAt: prev?.firedAt ?? null,
        notified: false,
        silencedBy: null,
      },
      notify: null,
    };
  }
  const firedAt = prev?.state === 'firing' && prev.firedAt ? prev.firedAt : at;
  if (prev?.state === 'firing' && prev.notified) {
    return {
      state: { ...base, state: 'firing', activeSince, firedAt, notified: true, silencedBy: null },
      notify: null,
    };
  }
  const silence = silenceFor(rule, silences, now);
  return {
    state: { ...base, state: 'firing', activeSince, firedAt, notified: !silence, silencedBy: silence?.id ?? null },
    notify: silence ? null : 'firing',
  };
}
