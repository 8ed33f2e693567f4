// Who may do what in identity. Every service method starts with one of these checks.
// A platform admin is an admin of tenant `default`; a tenant's admin acts only in its tenant.
import { assertAdmin, hasRole, type AuthContext } from '../../platform/auth/auth-context';
import { AuthenticationError, ForbiddenError } from '../../platform/errors/domain-errors';
import { ALL_TENANTS, DEFAULT_TENANT, type CallContext, type TenantScope } from './identity.types';

export function requireCaller(ctx: CallContext): AuthContext {
  if (!ctx.auth) throw new AuthenticationError('Not authenticated');
  return ctx.auth;
}

export function isPlatformAdmin(auth: AuthContext): boolean {
  return hasRole(auth, 'admin') && auth.tenantId === DEFAULT_TENANT;
}

export function requireAdmin(ctx: CallContext): AuthContext {
  const auth = requireCaller(ctx);
  assertAdmin(auth);
  return auth;
}

export function requirePlatformAdmin(ctx: CallContext): AuthContext {
  const auth = requireAdmin(ctx);
  if (!isPlatformAdmin(auth)) throw new ForbiddenError('Platform admin access required');
  return auth;
}

/** The widest set of tenants the caller may read: all for platform admins and services. */
export function readScopeOf(auth: AuthContext): TenantScope {
  return isPlatformAdmin(auth) || auth.isService ? ALL_TENANTS : auth.tenantId;
}

/** The tenant an admin action targets: the requested one if the caller may act there. */
export function targetTenant(auth: AuthContext, requested: string | undefined): string {
  const tenantId = requested ?? auth.tenantId;
  if (tenantId !== auth.tenantId && !isPlatformAdmin(auth)) throw new ForbiddenError('Access to this tenant is not allowed');
  return tenantId;
}
