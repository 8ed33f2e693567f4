// The observability service's topic: an alert rule started or stopped firing. Written in the
// notice outbox in the transaction that moves the alert's state, so it reaches the tenant's event
// stream and webhooks exactly when the state moved (docs/observability.md "Alerts"). Shaped after
// an Alertmanager webhook alert: status, labels, startsAt/endsAt.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { Timestamp } from './contract.types';

export const ObservabilityAlertSchema = Type.Object(
  {
    rule_id: Type.String({ minLength: 1 }),
    alertname: Type.String({ minLength: 1, maxLength: 200 }),
    status: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
    severity: Type.String({ maxLength: 32 }),
    scope: Type.Union([Type.Literal('tenant'), Type.Literal('platform')]),
    summary: Type.String({ maxLength: 1000 }),
    /** The rule's value at the evaluation that moved it (null: no data, which resolves). */
    value: Type.Union([Type.Number(), Type.Null()]),
    threshold: Type.Number(),
    labels: Type.Record(Type.String(), Type.String()),
    starts_at: Timestamp,
    ends_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'observability.alert.v1' },
);
export type ObservabilityAlert = Static<typeof ObservabilityAlertSchema>;

export const OBSERVABILITY_ALERT = eventContract({
  topic: 'observability.alert',
  version: 1,
  schema: ObservabilityAlertSchema,
  producer: 'observability',
  consumers: [],
  description: "An alert rule started firing or resolved; sent to the rule's tenant's stream and webhooks.",
});
