// Alert rules, their state and silences (docs/observability.md "Alerts"). A rule is a small
// declarative shape, not a PromQL expression:
//   threshold  the sum of the matching series' current values, compared with `threshold`
//   rate       their increase per second over the last `windowSeconds`
//   ratio      the increase of `metric` over the increase of `denominatorMetric`, same window
// held true for `forSeconds` before it fires (pending until then), as Prometheus' `for` does.

export type AlertKind = 'threshold' | 'rate' | 'ratio';
export type AlertOp = '>' | '>=' | '<' | '<=';
/** 'tenant': only series labelled with the rule's tenant; 'platform' (platform operators): every series. */
export type AlertScope = 'tenant' | 'platform';
export type AlertStateName = 'inactive' | 'pending' | 'firing';

/** Label equality: every pair must match a series' label exactly. */
export type Matchers = Record<string, string>;

export interface AlertRuleInput {
  name: string;
  scope?: AlertScope;
  kind: AlertKind;
  metric: string;
  matchers?: Matchers;
  denominatorMetric?: string;
  denominatorMatchers?: Matchers;
  op: AlertOp;
  threshold: number;
  windowSeconds?: number;
  forSeconds?: number;
  severity?: string;
  summary?: string;
}

export interface AlertRule {
  id: string;
  tenantId: string;
  scope: AlertScope;
  name: string;
  kind: AlertKind;
  metric: string;
  matchers: Matchers;
  denominatorMetric: string | null;
  denominatorMatchers: Matchers | null;
  op: AlertOp;
  threshold: number;
  windowSeconds: number;
  forSeconds: number;
  severity: string;
  summary: string;
  enabled: boolean;
  createdBy: string;
  createdAt: string;
}

export interface AlertState {
  ruleId: string;
  tenantId: string;
  state: AlertStateName;
  activeSince: string | null;
  firedAt: string | null;
  resolvedAt: string | null;
  value: number | null;
  /** The receivers were told it fires (false while a silence holds the notification). */
  notified: boolean;
  /** The silence holding the firing notification, if one does. */
  silencedBy: string | null;
  evaluatedAt: string;
}

export interface Silence {
  id: string;
  tenantId: string;
  matchers: Matchers;
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
}

export interface SilenceInput {
  matchers: Matchers;
  startsAt?: string;
  endsAt: string;
  comment: string;
}

/** A rule with where it stands: what the alerts list shows. */
export interface AlertView {
  rule: AlertRule;
  state: AlertState | null;
  labels: Matchers;
}

export const ALERT_LIMITS = {
  rulesPerTenant: 200,
  silencesPerTenant: 500,
  matchers: 10,
  labelLength: 200,
  maxWindowSeconds: 24 * 3600,
  maxForSeconds: 24 * 3600,
  maxSilenceSeconds: 90 * 24 * 3600,
} as const;

/** The labels of a rule's alert, which silences match: its matchers, then the rule's own names (these win). */
export function alertLabels(rule: AlertRule): Matchers {
  return {
    ...rule.matchers,
    alertname: rule.name,
    severity: rule.severity,
    scope: rule.scope,
    rule_id: rule.id,
  };
}
