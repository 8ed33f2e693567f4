// The tenant rule plus the record a regulated platform owes: every action a platform operator
// takes in another tenant is appended to that tenant's audit ledger (who, what, when), by the
// service that performs it. Services resolve the tenant of each operation through this.
import { isPlatformOperator } from './auth-context';
import type { Caller } from './caller';
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
  constructor(private readonly audit: OperatorAuditSink) {}

  /** resolveTenant, then the operator's access recorded before any data is touched. */
  async resolve(
    caller: Caller,
    requested: string | undefined,
    field: (string | number)[],
    action: string,
  ): Promise<string> {
    const tenantId = resolveTenant(caller, requested, field);
    const auth = caller.auth;
    if (auth && isPlatformOperator(auth) && auth.tenantId !== tenantId) {
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
