// The identity domain's records and the store interfaces its services depend on. Services see
// only these interfaces, so unit tests can hand them strict fakes and no database.
import type { OutboxWriter } from '../../platform/outbox/outbox.writer';
import type { MfaChallengeStore, MfaFactorStore, MfaPolicyStore, RecoveryCodeStore, SessionRecord } from './mfa.types';
import type { WebauthnChallengeStore, WebauthnCredentialStore } from './webauthn.types';

/**
 * Which tenant's rows a store read may return. A tenant id, or ALL_TENANTS, which only the
 * service layer hands out after it has checked that the caller is a platform admin or service
 * (or that the caller proves itself some other way, such as holding a refresh token).
 */
export const ALL_TENANTS = Symbol('all tenants');
export type TenantScope = string | typeof ALL_TENANTS;

export interface RoleRecord {
  id: string;
  name: string;
  description: string | null;
  scopes: string[];
  createdAt: Date;
  /** The tenant whose role it is, or null for a platform role. */
  tenantId: string | null;
}

export interface UserRecord {
  id: string;
  username: string;
  email: string | null;
  passwordHash: string;
  tenantId: string;
  createdAt: Date;
  updatedAt: Date;
  lastLogin: Date | null;
  isActive: boolean;
  isVerified: boolean;
  isService: boolean;
  roles: RoleRecord[];
}

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: Date;
  isActive: boolean;
  metadata: Record<string, unknown>;
}

export interface RefreshTokenRecord {
  id: string;
  userId: string;
  tokenHash: string;
  familyId: string;
  expiresAt: Date;
  createdAt: Date;
  revoked: boolean;
  usedAt: Date | null;
  /** How the family's login was authenticated (RFC 8176). */
  amr: string[];
}

export interface NewUser {
  username: string;
  email: string | null;
  passwordHash: string;
  tenantId: string;
  isService: boolean;
  isVerified: boolean;
  roleIds: string[];
  assignedBy: string | null;
}

export interface UserStore {
  /** The login candidate: a user with this username in this tenant, with roles. */
  findForLogin(tenantId: string, username: string): Promise<UserRecord | null>;
  findByIds(scope: TenantScope, ids: readonly string[]): Promise<UserRecord[]>;
  findByUsernames(scope: TenantScope, usernames: readonly string[]): Promise<UserRecord[]>;
  /** Ordered by username; returns up to `limit` users whose username sorts after `after`. */
  list(scope: TenantScope, page: { limit: number; after?: string }): Promise<UserRecord[]>;
  /** Whether a user of this tenant holds these (usernames and emails are unique within a tenant). */
  exists(tenantId: string, username: string, email: string | null): Promise<{ username: boolean; email: boolean }>;
  /** The service account with this client id (service account names are unique platform-wide). */
  findServiceAccount(clientId: string): Promise<UserRecord | null>;
  create(user: NewUser): Promise<UserRecord>;
  recordLogin(tenantId: string, userId: string, at: Date): Promise<void>;
  /** False when the user already had the role. */
  assignRole(tenantId: string, userId: string, roleId: string, assignedBy: string | null): Promise<boolean>;
}

export interface RoleStore {
  /** Roles of these names a tenant may use: platform roles and its own (null: platform roles only). */
  findByNames(scope: TenantScope | null, names: readonly string[]): Promise<RoleRecord[]>;
  list(scope: TenantScope): Promise<RoleRecord[]>;
  create(role: {
    name: string;
    description: string | null;
    scopes: string[];
    tenantId: string | null;
  }): Promise<RoleRecord>;
}

export interface TenantStore {
  findByIds(scope: TenantScope, ids: readonly string[]): Promise<TenantRecord[]>;
  list(scope: TenantScope): Promise<TenantRecord[]>;
  create(tenant: { id: string; name: string; metadata: Record<string, unknown> }): Promise<TenantRecord>;
}

export interface RefreshTokenStore {
  create(token: {
    userId: string;
    tokenHash: string;
    familyId: string;
    expiresAt: Date;
    amr: string[];
  }): Promise<RefreshTokenRecord>;
  findByHash(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks the token used if it still was unused and unrevoked; false when someone got there first. */
  markUsed(id: string, at: Date): Promise<boolean>;
  revokeFamily(familyId: string): Promise<number>;
  /** The user's live sessions (families with an unused, unrevoked, unexpired token), newest first. */
  listSessions(tenantId: string, userId: string, now: Date): Promise<SessionRecord[]>;
  /** Revokes one family of the user (scoped by tenant and user); the tokens revoked. */
  revokeUserFamily(tenantId: string, userId: string, familyId: string): Promise<number>;
  /** Revokes every family of the user; the tokens revoked. */
  revokeAllForUser(tenantId: string, userId: string): Promise<number>;
}

export interface IdentityStores {
  users: UserStore;
  roles: RoleStore;
  tenants: TenantStore;
  refreshTokens: RefreshTokenStore;
  mfaFactors: MfaFactorStore;
  recoveryCodes: RecoveryCodeStore;
  mfaChallenges: MfaChallengeStore;
  mfaPolicies: MfaPolicyStore;
  webauthnCredentials: WebauthnCredentialStore;
  webauthnChallenges: WebauthnChallengeStore;
  outbox: OutboxWriter;
}

/** The stores plus one database transaction over all of them. */
export interface IdentityUnitOfWork extends IdentityStores {
  transaction<T>(work: (stores: IdentityStores) => Promise<T>): Promise<T>;
}

/** A user as the APIs show it: never the password hash. */
export interface UserView {
  id: string;
  username: string;
  email: string | null;
  tenantId: string;
  roles: string[];
  scopes: string[];
  isActive: boolean;
  isVerified: boolean;
  isService: boolean;
  createdAt: Date;
  lastLogin: Date | null;
}

export interface TokenPair {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
  refreshToken: string;
}

export interface ServiceToken {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
  scopes: string[];
}
