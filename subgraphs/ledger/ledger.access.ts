// Who may touch which tenant's chain. Framework-free: both doors build a Caller from their
// request (verified token, X-Tenant-ID header) and the service asks here before any read/write.
import { actsForAnyTenant, canActForTenant, type AuthContext } from '../../platform/auth/auth-context';
import { ForbiddenError, InputError } from '../../platform/errors/domain-errors';

export interface Caller {
  /** Present when a bearer token was verified. */
  auth?: AuthContext;
  /**
   * X-Tenant-ID as set by the gateway in front. Only consulted for anonymous callers
   * (REQUIRE_AUTH=false, the spec's default): with a token the token's tenant rules.
   */
  headerTenant?: string;
}

export const TENANT_FORBIDDEN = 'Access to this tenant is not allowed';

/**
 * The tenant a request acts in. `requested` is the tenant_id the request names (query, body or
 * argument); `loc` says where, for the 422 when no tenant can be determined.
 */
export function resolveTenant(caller: Caller, requested: string | undefined, loc: (string | number)[]): string {
  if (caller.auth) {
    const tenant = requested ?? caller.auth.tenantId;
    if (!canActForTenant(caller.auth, tenant)) throw new ForbiddenError(TENANT_FORBIDDEN);
    return tenant;
  }
  if (requested !== undefined && caller.headerTenant !== undefined && requested !== caller.headerTenant) {
    throw new ForbiddenError(TENANT_FORBIDDEN);
  }
  const tenant = requested ?? caller.headerTenant;
  if (tenant === undefined) throw InputError.of(loc, 'Field required', 'missing');
  return tenant;
}

/**
 * Whether a request without a tenant verifies every tenant (spec: "without it an admin verifies
 * every tenant"): platform admins and service accounts with a token; anonymously only when no
 * gateway has pinned a tenant (REQUIRE_AUTH=false means the network in front is trusted).
 */
export function mayVerifyAllTenants(caller: Caller): boolean {
  if (caller.auth) return actsForAnyTenant(caller.auth);
  return caller.headerTenant === undefined;
}
