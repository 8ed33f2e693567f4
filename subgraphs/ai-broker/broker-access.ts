// Who is calling and in which tenant: the first step of every broker operation, before any input
// is read. An operator acting in another tenant names it in a header, and TenantAccess records
// that access in the tenant's audit ledger before anything is touched.
import { assertScope } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { ServiceCallContext } from '../../platform/clients/service-request';
import type { Forwarding } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { TenantPolicy } from './model-catalogue';

/** Where an operator's tenant comes from, so a refusal points at the header (REST's loc). */
const TENANT_FIELD = ['header', 'x-tenant-id'];

export class BrokerAccess {
  constructor(private readonly deps: Pick<AiBrokerDeps, 'config' | 'access' | 'policies'>) {}

  /** The caller's tenant, with its policy loaded (the config service is asked on first use). */
  async tenantOf(caller: Caller, scope: 'read' | 'write', action: string): Promise<string> {
    if (this.deps.config.requireAuth) requireAuth(caller);
    if (caller.auth) assertScope(caller.auth, scope);
    const tenantId = await this.deps.access.resolve(caller, undefined, TENANT_FIELD, action);
    await this.deps.policies.load(tenantId);
    return tenantId;
  }

  /** The policy in force now: the catalogue file's entry under the tenant's `ai_broker` config. */
  policyOf(tenantId: string): TenantPolicy {
    return this.deps.policies.of(tenantId);
  }

  /** What a call to another service (retrieval) carries: the caller's token, tenant and correlation. */
  context(caller: Caller, tenantId: string, forward: Forwarding): ServiceCallContext {
    return { token: forward.token, tenantId, correlationId: caller.correlationId };
  }
}
