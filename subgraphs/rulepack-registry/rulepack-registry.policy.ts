// Who may do what to a pack version (the common contract's roles), as pure functions of the
// verified caller and the version. The service applies them after it has found the version (so a
// version the caller may not see is a 404, not a 403).
import { hasRole, hasScope, isPlatformOperator, type AuthContext } from '../../platform/auth/auth-context';

/** A tenant role that may certify, reject and deprecate its tenant's packs (besides `admin`). */
export const REVIEWER_ROLE = 'reviewer';

interface Owned {
  ownerTenant: string;
  author: string;
}

/**
 * Whether the caller wrote this version. Usernames are unique within a tenant only, so the
 * author is a caller of the owner tenant with that name, or one who acts for any tenant with it
 * (an operator who submitted for the tenant): the second may over-match, which only ever refuses.
 */
export function isAuthor(auth: AuthContext, v: Owned): boolean {
  if (auth.username !== v.author) return false;
  return auth.tenantId === v.ownerTenant || isPlatformOperator(auth) || auth.isService;
}

/** Review decisions (certify, reject) and deprecation: admin or reviewer of the owner tenant, or an operator; never the author. */
export function mayDecide(auth: AuthContext, v: Owned): 'yes' | 'author' | 'role' {
  if (isAuthor(auth, v)) return 'author';
  if (isPlatformOperator(auth)) return 'yes';
  if (auth.tenantId === v.ownerTenant && (hasRole(auth, 'admin') || hasRole(auth, REVIEWER_ROLE))) return 'yes';
  return 'role';
}

/** Asking for review: the author, or anyone who may write in the owner tenant, or an operator. */
export function mayRequestReview(auth: AuthContext, v: Owned): boolean {
  if (isAuthor(auth, v) || isPlatformOperator(auth)) return true;
  return auth.tenantId === v.ownerTenant && hasScope(auth, 'write');
}
