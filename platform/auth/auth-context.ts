// Who is calling, as every service sees it after the token is verified.
import { ForbiddenError } from '../errors/domain-errors';

export interface AuthContext {
  username: string;
  tenantId: string;
  roles: string[];
  scopes: string[];
  /** Service accounts (client-credentials tokens) act for the platform, not for a person. */
  isService: boolean;
}

export type Scope = 'read' | 'write' | 'admin';

export function hasRole(auth: AuthContext, role: string): boolean {
  return auth.roles.includes(role);
}

export function hasScope(auth: AuthContext, scope: string): boolean {
  return auth.scopes.includes(scope) || auth.scopes.includes('admin');
}

export function assertAdmin(auth: AuthContext): void {
  if (!hasRole(auth, 'admin')) throw new ForbiddenError('Admin access required');
}

export function assertScope(auth: AuthContext, scope: Scope): void {
  if (!hasScope(auth, scope)) throw new ForbiddenError(`Scope '${scope}' required`);
}

/** Platform admins (admin role in the `default` tenant) and service accounts act for any tenant. */
export function actsForAnyTenant(auth: AuthContext): boolean {
  return auth.isService || (hasRole(auth, 'admin') && auth.tenantId === 'default');
}

/** A tenant a caller may act in: its own, or any when it acts platform-wide. */
export function canActForTenant(auth: AuthContext, tenantId: string): boolean {
  return auth.tenantId === tenantId || actsForAnyTenant(auth);
}

export function assertTenantAccess(auth: AuthContext, tenantId: string): void {
  if (!canActForTenant(auth, tenantId)) throw new ForbiddenError('Access to this tenant is not allowed');
}
