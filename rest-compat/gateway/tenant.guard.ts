// Tenant context for proxied calls: the token's tenant, unless the caller names another one in
// `X-Tenant-ID`, `?tenant_id=` or a JSON body's `tenant_id`, which only a platform admin or a
// service account may do (canActForTenant); anyone else gets 403. The result is what the
// gateway sends upstream as X-Tenant-ID, never the client's header as such.
import { canActForTenant, type AuthContext } from '../../platform/auth/auth-context';
import { ForbiddenError } from '../../platform/errors/domain-errors';

export interface TenantSources {
  header?: string | string[];
  query?: unknown;
  body?: unknown;
}

/** The tenant the caller named, if any (after the same checks as effectiveTenant). */
export function namedTenant(auth: AuthContext, sources: TenantSources): string | undefined {
  const tenant = effectiveTenant(auth, sources);
  const named = [firstString(sources.header), tenantField(sources.query), tenantField(sources.body)].some((t) => t !== undefined);
  return named ? tenant : undefined;
}

export function effectiveTenant(auth: AuthContext, sources: TenantSources): string {
  const named = [firstString(sources.header), tenantField(sources.query), tenantField(sources.body)].filter((t): t is string => t !== undefined);
  for (const tenant of named) {
    if (!canActForTenant(auth, tenant)) throw new ForbiddenError('Access to this tenant is not allowed');
  }
  if (new Set(named).size > 1) throw new ForbiddenError('Conflicting tenant ids in one request');
  return named[0] ?? auth.tenantId;
}

function tenantField(source: unknown): string | undefined {
  if (!source || typeof source !== 'object' || Array.isArray(source)) return undefined;
  return firstString((source as Record<string, unknown>).tenant_id);
}

function firstString(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}
