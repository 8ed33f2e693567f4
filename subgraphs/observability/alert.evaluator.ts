// One evaluation pass over every enabled rule: read the current samples of the metrics the rules
// name, add them to the history, compute each rule's value and next state, and save each state
// with the notice it owes (observability.alert, through the notice outbox: the relay appends it to
// the tenant's stream and queues it for the tenant's webhooks). `evaluate(now)` takes the time
// from its caller: the service passes the clock every OBSERVABILITY_ALERT_EVAL_MS, tests step it.
import { OBSERVABILITY_ALERT } from '../../platform/contracts/observability.events';
import { pendingNotice } from '../../platform/outbox/notice.writer';
import type { MetricSource } from '../../platform/telemetry/metric-source';
import { nextState, ruleValue, type Notification } from './alert.evaluate';
import type { AlertStore } from './alert.store';
import { alertLabels, type AlertRule, type AlertState } from './alert.types';
import { SampleHistory } from './sample.history';

export interface EvaluationResult {
  rules: number;
  notifications: { ruleId: string; status: 'firing' | 'resolved' }[];
}

export class AlertEvaluator {
  readonly history = new SampleHistory();

  constructor(
    private readonly store: AlertStore,
    private readonly source: MetricSource,
    /** How long samples are kept beyond the longest window (one evaluation interval is enough). */
    private readonly slackMs = 60_000,
  ) {}

  async evaluate(now: number): Promise<EvaluationResult> {
    const rules = await this.store.enabledRules();
    const names = new Set<string>();
    for (const { rule } of rules) {
      names.add(rule.metric);
      if (rule.kind === 'ratio') names.add(rule.denominatorMetric ?? rule.metric);
    }
    const longest = Math.max(0, ...rules.map(({ rule }) => rule.windowSeconds * 1000));
    if (names.size > 0) this.history.record(await this.source.collect(names), now, longest + this.slackMs);
    const silences = await this.store.activeSilences(new Date(now));
    const result: EvaluationResult = { rules: rules.length, notifications: [] };
    for (const { rule, state: prev } of rules) {
      const value = ruleValue(rule, this.history, now);
      const { state, notify } = nextState(rule, prev, value, silences, now);
      await this.store.saveState(state, notify ? alertNotice(rule, state, notify) : null);
      if (notify) result.notifications.push({ ruleId: rule.id, status: notify });
    }
    return result;
  }
}

function alertNotice(rule: AlertRule, state: AlertState, status: Exclude<Notification, null>) {
  return pendingNotice(
    'observability',
    OBSERVABILITY_ALERT,
    {
      rule_id: rule.id,
      alertname: rule.name,
      status,
      severity: rule.severity,
      scope: rule.scope,
      summary: rule.summary,
      value: state.value !== null && Number.isFinite(state.value) ? state.value : null,
      threshold: rule.threshold,
      labels: alertLabels(rule),
      starts_at: state.firedAt ?? state.evaluatedAt,
      ends_at: status === 'resolved' ? state.resolvedAt : null,
    },
    { tenantId: rule.tenantId, subject: rule.id },
  );
}
