// Domain records to the REST shapes (snake_case, ISO timestamps).
import type { RoleRecord, TenantRecord, UserView } from '../../subgraphs/identity/identity.types';

export function userOut(u: UserView) {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    tenant_id: u.tenantId,
    roles: u.roles,
    scopes: u.scopes,
    is_active: u.isActive,
    is_verified: u.isVerified,
    is_service: u.isService,
    created_at: u.createdAt.toISOString(),
    last_login: u.lastLogin ? u.lastLogin.toISOString() : null,
  };
}

export function tenantOut(t: TenantRecord) {
  return { id: t.id, name: t.name, is_active: t.isActive, created_at: t.createdAt.toISOString() };
}

export function roleOut(r: RoleRecord) {
  return {
    name: r.name,
    description: r.description,
    scopes: r.scopes,
    created_at: r.createdAt.toISOString(),
    tenant_id: r.tenantId,
  };
}
