// The alerting routes of the observability service (port 8096): rules, their alerts, silences.
// Each is one call into subgraphs/observability's alert service; JSON in snake_case.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { AlertService } from '../../subgraphs/observability/alert.service';
import type { AlertRule, AlertView, Silence as SilenceRecord } from '../../subgraphs/observability/alert.types';
import {
  AlertList,
  AlertQuery,
  CreateRuleBody,
  CreateSilenceBody,
  Empty,
  IdParams,
  Rule,
  RuleList,
  Silence,
  SilenceList,
  SilenceQuery,
} from './alerts.schemas';
import { Detail, responses, TenantQuery } from './observability.schemas';

const tags = ['observability'];

export function ruleJson(r: AlertRule) {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    scope: r.scope,
    name: r.name,
    kind: r.kind,
    metric: r.metric,
    matchers: r.matchers,
    denominator_metric: r.denominatorMetric,
    denominator_matchers: r.denominatorMatchers,
    op: r.op,
    threshold: r.threshold,
    window_seconds: r.windowSeconds,
    for_seconds: r.forSeconds,
    severity: r.severity,
    summary: r.summary,
    enabled: r.enabled,
    created_by: r.createdBy,
    created_at: r.createdAt,
  };
}

function alertJson(a: AlertView) {
  return {
    rule: ruleJson(a.rule),
    labels: a.labels,
    state: a.state?.state ?? 'inactive',
    value: a.state?.value ?? null,
    active_since: a.state?.activeSince ?? null,
    fired_at: a.state?.firedAt ?? null,
    resolved_at: a.state?.resolvedAt ?? null,
    notified: a.state?.notified ?? false,
    silenced_by: a.state?.silencedBy ?? null,
    evaluated_at: a.state?.evaluatedAt ?? null,
  };
}

function silenceJson(s: SilenceRecord) {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    matchers: s.matchers,
    starts_at: s.startsAt,
    ends_at: s.endsAt,
    created_by: s.createdBy,
    comment: s.comment,
    created_at: s.createdAt,
  };
}

export function registerAlertRoutes(routes: FastifyInstance, alerts: AlertService): void {
  routes.post<{ Body: CreateRuleBody }>(
    '/alert-rules',
    {
      schema: {
        tags,
        summary: 'Creates an alert rule (threshold, rate or ratio over a window, held `for` seconds)',
        body: CreateRuleBody,
        response: { ...responses(Rule), 201: Rule, 409: Detail },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const rule = await alerts.createRule(
        callerOf(request),
        {
          name: b.name,
          scope: b.scope,
          kind: b.kind,
          metric: b.metric,
          matchers: b.matchers,
          denominatorMetric: b.denominator_metric,
          denominatorMatchers: b.denominator_matchers,
          op: b.op,
          threshold: b.threshold,
          windowSeconds: b.window_seconds,
          forSeconds: b.for_seconds,
          severity: b.severity,
          summary: b.summary,
        },
        b.tenant_id,
      );
      return reply.code(201).send(ruleJson(rule));
    },
  );

  routes.get<{ Querystring: TenantQuery }>(
    '/alert-rules',
    { schema: { tags, summary: "The tenant's alert rules", querystring: TenantQuery, response: responses(RuleList) } },
    async (request) => ({
      rules: (await alerts.rules(callerOf(request), request.query.tenant_id)).map(ruleJson),
    }),
  );

  routes.delete<{ Params: IdParams; Querystring: TenantQuery }>(
    '/alert-rules/:id',
    {
      schema: {
        tags,
        summary: 'Deletes an alert rule (and its state)',
        params: IdParams,
        querystring: TenantQuery,
        response: { ...responses(Empty), 204: { type: 'null', description: 'Deleted' } },
      },
    },
    async (request, reply) => {
      await alerts.deleteRule(callerOf(request), request.params.id, request.query.tenant_id);
      return reply.code(204).send();
    },
  );

  routes.get<{ Querystring: AlertQuery }>(
    '/alerts',
    {
      schema: {
        tags,
        summary: "The tenant's rules with their state (inactive, pending, firing); `firing=true` for the firing ones",
        querystring: AlertQuery,
        response: responses(AlertList),
      },
    },
    async (request) => ({
      alerts: (await alerts.alerts(callerOf(request), request.query.tenant_id, request.query.firing ?? false)).map(
        alertJson,
      ),
    }),
  );

  routes.post<{ Body: CreateSilenceBody }>(
    '/silences',
    {
      schema: {
        tags,
        summary: 'Creates a silence: matching alerts notify nobody from starts_at to ends_at (who and why kept)',
        body: CreateSilenceBody,
        response: { ...responses(Silence), 201: Silence },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const s = await alerts.createSilence(
        callerOf(request),
        { matchers: b.matchers, startsAt: b.starts_at, endsAt: b.ends_at, comment: b.comment },
        b.tenant_id,
      );
      return reply.code(201).send(silenceJson(s));
    },
  );

  routes.get<{ Querystring: SilenceQuery }>(
    '/silences',
    {
      schema: {
        tags,
        summary: "The tenant's silences in force or to come (`all=true`: expired ones too)",
        querystring: SilenceQuery,
        response: responses(SilenceList),
      },
    },
    async (request) => ({
      silences: (await alerts.silences(callerOf(request), request.query.tenant_id, request.query.all ?? false)).map(
        silenceJson,
      ),
    }),
  );

  routes.post<{ Params: IdParams; Querystring: TenantQuery }>(
    '/silences/:id/expire',
    {
      schema: {
        tags,
        summary: 'Ends a silence now',
        params: IdParams,
        querystring: TenantQuery,
        response: responses(Silence),
      },
      config: { inputLocation: 'query' },
    },
    async (request) =>
      silenceJson(await alerts.expireSilence(callerOf(request), request.params.id, request.query.tenant_id)),
  );
}
