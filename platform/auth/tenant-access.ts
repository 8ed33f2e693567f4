// The tenant rule plus the record a regulated platform owes: every action a platform operator
// takes in another tenant is appended to that tenant's audit ledger (who, what, when), by the
// service that performs it. Services resolve the tenant of each operation through this.
import { isPlatformOperator } from './auth-context';
import type { Caller } from './caller';
import { NO_MFA_POLICY, type MfaPolicy } from './mfa';
import { requireMfa } from './require-mfa';
import { resolveTenant } from './tenant.rule';

export const OPERATOR_ACCESS_EVENT = 'platform_operator_access';

export interface OperatorAccess {
  /** The tenant acted in (whose ledger records it). */
  tenantId: string;
  operator: string;
  operatorTenant: string;
  /** What was done, e.g. `ledger.events.list` or `identity.users.create`. */
  action: string;
  correlationId: string;
}

/** Writes the record of an operator's access into the tenant's ledger (directly or via the outbox). */
export type OperatorAuditSink = (access: OperatorAccess) => Promise<void>;

export class TenantAccess {
  /**
   * `mfa`: the platform's MFA policy (PlatformConfig.auth.mfa). An operator acting in another
   * tenant, and every sensitive action checked with requireMfa below, then needs a second factor.
   */
  constructor(
    private readonly audit: OperatorAuditSink,
    readonly mfa: MfaPolicy = NO_MFA_POLICY,
  ) {}

  /** Step-up for a sensitive action (platform/auth/require-mfa.ts): 403 mfa_required without a second factor. */
  requireMfa(caller: Caller, action: string): void {
    requireMfa(caller.auth, this.mfa, action);
  }

  /**
   * Whether acting in `tenantId` is an operator's access to another tenant, which resolve()
   * checks for a second factor and records; when it is not, resolveTenant alone is the rule (a
   * door may then answer without a promise).
   */
  recordsAccess(caller: Caller, tenantId: string): boolean {
    const auth = caller.auth;
    return auth !== undefined && isPlatformOperator(auth) && auth.tenantId !== tenantId;
  }

  /** resolveTenant, then the operator's access recorded before any data is touched. */
  async resolve(
    caller: Caller,
    requested: string | undefined,
    field: (string | number)[],
    action: string,
  ): Promise<string> {
    const tenantId = resolveTenant(caller, requested, field);
    const auth = caller.auth;
    if (auth && this.recordsAccess(caller, tenantId)) {
      requireMfa(auth, this.mfa, `act in tenant '${tenantId}' as a platform operator`);
      await this.audit({
        tenantId,
        operator: auth.username,
        operatorTenant: auth.tenantId,
        action,
        correlationId: caller.correlationId,
      });
    }
    return tenantId;
  }
}

/** The event data of an operator access record (the same by every service). */
export function operatorAccessData(access: OperatorAccess): Record<string, unknown> {
  return { operator: access.operator, operator_tenant: access.operatorTenant, action: access.action };
}
