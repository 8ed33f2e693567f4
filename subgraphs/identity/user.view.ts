// How a user record is shown through the APIs: role names and the union of their scopes,
// never the password hash.
import { SERVICE_ROLE_PREFIX } from '../../platform/auth/jwt';
import type { RoleRecord, UserRecord, UserView } from './identity.types';

export function scopesOf(roles: readonly RoleRecord[]): string[] {
  return [...new Set(roles.flatMap((r) => r.scopes))].sort();
}

/** Role names as they go into tokens: a service account's roles always carry the service prefix. */
export function roleNamesOf(user: Pick<UserRecord, 'roles' | 'isService'>): string[] {
  return user.roles.map((r) =>
    user.isService && !r.name.startsWith(SERVICE_ROLE_PREFIX) ? `${SERVICE_ROLE_PREFIX}${r.name}` : r.name,
  );
}

export function toUserView(user: UserRecord): UserView {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    tenantId: user.tenantId,
    roles: roleNamesOf(user),
    scopes: scopesOf(user.roles),
    isActive: user.isActive,
    isVerified: user.isVerified,
    isService: user.isService,
    createdAt: user.createdAt,
    lastLogin: user.lastLogin,
  };
}
