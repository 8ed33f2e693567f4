// Who may do what with which layer (docs/config.md, "Tenant rule"): the platform, suite and
// module layers are the platform operators'; a tenant's layer is its admins' (and operators',
// recorded in the tenant's ledger by TenantAccess). Readers see their own tenant's effective
// configuration; a bundle or rollout of another tenant is not found, never forbidden.
import { isAdmin, isPlatformOperator, type AuthContext } from '../../platform/auth/auth-context';
import { requireAuth } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ForbiddenError } from '../../platform/errors/domain-errors';
import { OPERATOR_VIEW, type Viewer } from './config.store';
import type { ConfigCaller, Layer } from './config.types';

/** What a caller reads bundles and rollouts with. */
export function viewerOf(auth: AuthContext): Viewer {
  return isPlatformOperator(auth) ? OPERATOR_VIEW : auth.tenantId;
}

/** The tenant a change to `layer` belongs to (null for operator layers), after the rights check. */
export async function writerTenant(
  access: TenantAccess,
  caller: ConfigCaller,
  layer: Layer,
  requestedTenant: string | undefined,
  action: string,
): Promise<{ auth: AuthContext; tenantId: string | null }> {
  const auth = requireAuth(caller);
  if (layer !== 'tenant') {
    if (!isPlatformOperator(auth))
      throw new ForbiddenError('The platform, suite and module layers are for platform operators');
    return { auth, tenantId: null };
  }
  if (!isAdmin(auth)) throw new ForbiddenError('Admin access required');
  const tenantId = await access.resolve(caller, requestedTenant, ['body', 'tenant_id'], action);
  return { auth, tenantId };
}
