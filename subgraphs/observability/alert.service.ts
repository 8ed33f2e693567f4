// The doors' rules for alerting: the Caller first, the tenant by TenantAccess (another tenant's
// rule or silence is NOT_FOUND, as a missing one is), `write` scope for changes, and platform
// scope (rules over every series, not only the tenant's) for platform operators only.
import { randomUUID } from 'node:crypto';
import { assertScope, isPlatformOperator } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { ruleInputIssues, silenceInputIssues } from './alert.rules-input';
import type { AlertStore } from './alert.store';
import {
  ALERT_LIMITS,
  alertLabels,
  type AlertRule,
  type AlertRuleInput,
  type AlertView,
  type Silence,
  type SilenceInput,
} from './alert.types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class AlertService {
  constructor(
    private readonly store: AlertStore,
    private readonly access: TenantAccess,
    private readonly clock: () => number = Date.now,
  ) {}

  async createRule(caller: Caller, input: AlertRuleInput, tenantId?: string): Promise<AlertRule> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.alert_rule.create');
    const issues = ruleInputIssues(input);
    if (issues.length > 0) throw new InputError(issues);
    const scope = input.scope ?? 'tenant';
    if (scope === 'platform' && !isPlatformOperator(auth))
      throw new ForbiddenError('Platform-scoped rules need the platform-admin role');
    const rule: AlertRule = {
      id: randomUUID(),
      tenantId: tenant,
      scope,
      name: input.name.trim(),
      kind: input.kind,
      metric: input.metric,
      matchers: input.matchers ?? {},
      denominatorMetric: input.kind === 'ratio' ? (input.denominatorMetric ?? null) : null,
      denominatorMatchers: input.kind === 'ratio' ? (input.denominatorMatchers ?? {}) : null,
      op: input.op,
      threshold: input.threshold,
      windowSeconds: input.windowSeconds ?? 300,
      forSeconds: input.forSeconds ?? 0,
      severity: input.severity ?? 'warning',
      summary: input.summary ?? '',
      enabled: true,
      createdBy: auth.username,
      createdAt: new Date(this.clock()).toISOString(),
    };
    const outcome = await this.store.insertRule(rule, ALERT_LIMITS.rulesPerTenant);
    if (outcome === 'duplicate') throw new ConflictError(`A rule named '${rule.name}' exists`);
    if (outcome === 'full') throw InputError.of(['name'], `At most ${ALERT_LIMITS.rulesPerTenant} rules per tenant`);
    return rule;
  }

  async rules(caller: Caller, tenantId?: string): Promise<AlertRule[]> {
    requireAuth(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.alert_rule.read');
    return this.store.rules(tenant);
  }

  async deleteRule(caller: Caller, id: string, tenantId?: string): Promise<void> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.alert_rule.delete');
    if (!UUID.test(id) || !(await this.store.deleteRule(tenant, id))) throw new NotFoundError('Alert rule not found');
  }

  /** Every rule of the tenant with its state; `firingOnly` keeps the firing ones. */
  async alerts(caller: Caller, tenantId?: string, firingOnly = false): Promise<AlertView[]> {
    requireAuth(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.alert.read');
    const [rules, states] = await Promise.all([this.store.rules(tenant), this.store.states(tenant)]);
    const byRule = new Map(states.map((s) => [s.ruleId, s]));
    return rules
      .map((rule) => ({ rule, state: byRule.get(rule.id) ?? null, labels: alertLabels(rule) }))
      .filter((a) => !firingOnly || a.state?.state === 'firing');
  }

  async createSilence(caller: Caller, input: SilenceInput, tenantId?: string): Promise<Silence> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.silence.create');
    const now = this.clock();
    const issues = silenceInputIssues(input, now);
    if (issues.length > 0) throw new InputError(issues);
    const silence: Silence = {
      id: randomUUID(),
      tenantId: tenant,
      matchers: input.matchers,
      startsAt: new Date(input.startsAt === undefined ? now : Date.parse(input.startsAt)).toISOString(),
      endsAt: new Date(Date.parse(input.endsAt)).toISOString(),
      createdBy: auth.username,
      comment: input.comment.trim(),
      createdAt: new Date(now).toISOString(),
    };
    if ((await this.store.insertSilence(silence, ALERT_LIMITS.silencesPerTenant)) === 'full')
      throw InputError.of(['matchers'], `At most ${ALERT_LIMITS.silencesPerTenant} silences in force per tenant`);
    return silence;
  }

  /** The tenant's silences: in force or to come (default), or all of them (`all`). */
  async silences(caller: Caller, tenantId?: string, all = false): Promise<Silence[]> {
    requireAuth(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.silence.read');
    return this.store.silences(tenant, all ? null : new Date(this.clock()));
  }

  /** Ends a silence now (kept, with its new end, as the record of who silenced what). */
  async expireSilence(caller: Caller, id: string, tenantId?: string): Promise<Silence> {
    const auth = requireAuth(caller);
    assertScope(auth, 'write');
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'observability.silence.expire');
    const s = UUID.test(id) ? await this.store.expireSilence(tenant, id, new Date(this.clock())) : null;
    if (!s) throw new NotFoundError('Silence not found');
    return s;
  }
}
