// Who may do what in identity, on the platform's one tenant rule (platform/auth/tenant.rule.ts).
// A tenant's admin manages its own tenant; platform operators any tenant; every service method
// starts with one of these checks.
import { assertAdmin, assertPlatformOperator, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import { actsForAnyTenant } from '../../platform/auth/tenant.rule';
import { ALL_TENANTS, type TenantScope } from './identity.types';

export function requireAdmin(caller: Caller): AuthContext {
  const auth = requireAuth(caller);
  assertAdmin(auth);
  return auth;
}

/** A non-admin hears the spec's 'Admin access required' first; a tenant admin, that it needs more. */
export function requirePlatformOperator(caller: Caller): AuthContext {
  const auth = requireAdmin(caller);
  assertPlatformOperator(auth);
  return auth;
}

/** The widest set of tenants the caller may read: all for platform operators and services. */
export function readScopeOf(auth: AuthContext): TenantScope {
  return actsForAnyTenant(auth) ? ALL_TENANTS : auth.tenantId;
}
