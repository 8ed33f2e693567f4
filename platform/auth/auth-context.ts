// Who is calling, as every service sees it after the token is verified, and the checks on roles
// and scopes. The tenant rule (who may act in which tenant) is in tenant.rule.ts.
import { ForbiddenError } from '../errors/domain-errors';

export interface AuthContext {
  username: string;
  tenantId: string;
  roles: string[];
  scopes: string[];
  /** Service accounts (client-credentials tokens) act for the platform, not for a person. */
  isService: boolean;
  /** How the person signed in (RFC 8176 values, from the token's `amr`); absent on older and service tokens. */
  amr?: string[];
  /** The token's assurance level (`aal1`, `aal2`). */
  acr?: string;
  /** The session (refresh-token family) the token came from. */
  sid?: string;
}

export type Scope = 'read' | 'write' | 'admin';

/**
 * The platform operator's role. A tenant's `admin` manages its own tenant only; acting in another
 * tenant needs this role, which no seeded development user holds (docs/security.md).
 */
export const PLATFORM_ADMIN_ROLE = 'platform-admin';

export function hasRole(auth: AuthContext, role: string): boolean {
  return auth.roles.includes(role);
}

export function hasScope(auth: AuthContext, scope: string): boolean {
  return auth.scopes.includes(scope) || auth.scopes.includes('admin');
}

/** Tenant admins and platform operators. */
export function isAdmin(auth: AuthContext): boolean {
  return hasRole(auth, 'admin') || isPlatformOperator(auth);
}

export function isPlatformOperator(auth: AuthContext): boolean {
  return !auth.isService && hasRole(auth, PLATFORM_ADMIN_ROLE);
}

export function assertAdmin(auth: AuthContext): void {
  if (!isAdmin(auth)) throw new ForbiddenError('Admin access required');
}

export function assertPlatformOperator(auth: AuthContext): void {
  if (!isPlatformOperator(auth)) throw new ForbiddenError('Platform admin access required');
}

export function assertScope(auth: AuthContext, scope: Scope): void {
  if (!hasScope(auth, scope)) throw new ForbiddenError(`Scope '${scope}' required`);
}
