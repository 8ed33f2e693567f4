// JSON schemas of the alerting routes (validation and OpenAPI). Wire names are snake_case.
import { Type, type Static } from '@sinclair/typebox';

const TenantId = Type.String({ minLength: 1, maxLength: 255 });
const Labels = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 200 }), { maxProperties: 10 });

export const CreateRuleBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scope: Type.Optional(Type.Union([Type.Literal('tenant'), Type.Literal('platform')])),
    kind: Type.Union([Type.Literal('threshold'), Type.Literal('rate'), Type.Literal('ratio')]),
    metric: Type.String({ minLength: 1, maxLength: 200 }),
    matchers: Type.Optional(Labels),
    denominator_metric: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    denominator_matchers: Type.Optional(Labels),
    op: Type.Union([Type.Literal('>'), Type.Literal('>='), Type.Literal('<'), Type.Literal('<=')]),
    threshold: Type.Number(),
    window_seconds: Type.Optional(Type.Integer()),
    for_seconds: Type.Optional(Type.Integer()),
    severity: Type.Optional(Type.String({ maxLength: 32 })),
    summary: Type.Optional(Type.String({ maxLength: 1000 })),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false },
);
export type CreateRuleBody = Static<typeof CreateRuleBody>;

export const Rule = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  scope: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  metric: Type.String(),
  matchers: Type.Record(Type.String(), Type.String()),
  denominator_metric: Type.Union([Type.String(), Type.Null()]),
  denominator_matchers: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  op: Type.String(),
  threshold: Type.Number(),
  window_seconds: Type.Integer(),
  for_seconds: Type.Integer(),
  severity: Type.String(),
  summary: Type.String(),
  enabled: Type.Boolean(),
  created_by: Type.String(),
  created_at: Type.String(),
});
export const RuleList = Type.Object({ rules: Type.Array(Rule) });

export const Alert = Type.Object({
  rule: Rule,
  labels: Type.Record(Type.String(), Type.String()),
  state: Type.String(),
  value: Type.Union([Type.Number(), Type.Null()]),
  active_since: Type.Union([Type.String(), Type.Null()]),
  fired_at: Type.Union([Type.String(), Type.Null()]),
  resolved_at: Type.Union([Type.String(), Type.Null()]),
  notified: Type.Boolean(),
  silenced_by: Type.Union([Type.String(), Type.Null()]),
  evaluated_at: Type.Union([Type.String(), Type.Null()]),
});
export const AlertList = Type.Object({ alerts: Type.Array(Alert) });

export const CreateSilenceBody = Type.Object(
  {
    matchers: Labels,
    starts_at: Type.Optional(Type.String({ maxLength: 40 })),
    ends_at: Type.String({ maxLength: 40 }),
    comment: Type.String({ maxLength: 1000 }),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false },
);
export type CreateSilenceBody = Static<typeof CreateSilenceBody>;

export const Silence = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  matchers: Type.Record(Type.String(), Type.String()),
  starts_at: Type.String(),
  ends_at: Type.String(),
  created_by: Type.String(),
  comment: Type.String(),
  created_at: Type.String(),
});
export const SilenceList = Type.Object({ silences: Type.Array(Silence) });

export const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export type IdParams = Static<typeof IdParams>;
export const AlertQuery = Type.Object({
  tenant_id: Type.Optional(TenantId),
  firing: Type.Optional(Type.Boolean()),
});
export type AlertQuery = Static<typeof AlertQuery>;
export const SilenceQuery = Type.Object({ tenant_id: Type.Optional(TenantId), all: Type.Optional(Type.Boolean()) });
export type SilenceQuery = Static<typeof SilenceQuery>;
export const Empty = Type.Object({});
