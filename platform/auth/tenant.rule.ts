// The tenant rule, once for the whole platform: a caller acts in its own tenant; only platform
// operators (role `platform-admin`) and service accounts may act in another one. Every door uses
// it: the gateway and the router on the tenant a request names (header, query, body), each
// service on the tenant its domain operation touches. Anyone else naming another tenant gets 403.
import { ForbiddenError, InputError } from '../errors/domain-errors';
import { isPlatformOperator, type AuthContext } from './auth-context';
import type { Caller } from './caller';

export const TENANT_FORBIDDEN = 'Access to this tenant is not allowed';
export const DEFAULT_TENANT = 'default';

/** Platform operators and service accounts act for any tenant. */
export function actsForAnyTenant(auth: AuthContext): boolean {
  return auth.isService || isPlatformOperator(auth);
}

export function canActForTenant(auth: AuthContext, tenantId: string): boolean {
  return auth.tenantId === tenantId || actsForAnyTenant(auth);
}

export function assertTenantAccess(auth: AuthContext, tenantId: string): void {
  if (!canActForTenant(auth, tenantId)) throw new ForbiddenError(TENANT_FORBIDDEN);
}

/**
 * The tenant a domain operation acts in. `requested` is the tenant the request names (query,
 * body or argument; undefined when it names none); `field` says which input named it, for the 422
 * when an anonymous caller names no tenant at all.
 */
export function resolveTenant(caller: Caller, requested: string | undefined, field: (string | number)[]): string {
  if (caller.auth) {
    // The gateway and router forward the tenant a request acts in as X-Tenant-ID (an operator may
    // have named another one there): honour it by every door, under the same rule.
    const tenant = requested ?? caller.headerTenant ?? caller.auth.tenantId;
    assertTenantAccess(caller.auth, tenant);
    return tenant;
  }
  if (requested !== undefined && caller.headerTenant !== undefined && requested !== caller.headerTenant) {
    throw new ForbiddenError(TENANT_FORBIDDEN);
  }
  const tenant = requested ?? caller.headerTenant;
  if (tenant === undefined) throw InputError.of(field, 'Field required', 'missing');
  return tenant;
}

/**
 * Whether a request that names no tenant means "every tenant" (e.g. verifying every chain):
 * operators and service accounts with a token; anonymously only when no gateway pinned a tenant.
 */
export function mayActPlatformWide(caller: Caller): boolean {
  if (caller.auth) return actsForAnyTenant(caller.auth);
  return caller.headerTenant === undefined;
}

/** Where an edge request (gateway, router) may name a tenant. */
export interface TenantSources {
  header?: string | string[];
  query?: unknown;
  body?: unknown;
}

/**
 * The tenant an edge request acts in: the token's, unless the request names another one, which
 * only operators and service accounts may. Conflicting names are refused.
 */
export function effectiveTenant(auth: AuthContext, sources: TenantSources): string {
  const named = namedTenants(sources);
  for (const tenant of named) assertTenantAccess(auth, tenant);
  if (new Set(named).size > 1) throw new ForbiddenError('Conflicting tenant ids in one request');
  return named[0] ?? auth.tenantId;
}

/** Whether the request names a tenant at all (after the same checks as effectiveTenant). */
export function namesTenant(auth: AuthContext, sources: TenantSources): boolean {
  effectiveTenant(auth, sources);
  return namedTenants(sources).length > 0;
}

function namedTenants(sources: TenantSources): string[] {
  return [firstString(sources.header), tenantField(sources.query), tenantField(sources.body)].filter(
    (t): t is string => t !== undefined,
  );
}

function tenantField(source: unknown): string | undefined {
  if (!source || typeof source !== 'object' || Array.isArray(source)) return undefined;
  return firstString((source as Record<string, unknown>).tenant_id);
}

function firstString(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
