// Wires identity's services from their dependencies. REST routes and GraphQL resolvers receive
// this one bundle, so both doors call the same instances.
import { DualTokenVerifier } from '../../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../../platform/auth/jwt';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import type { PlatformConfig } from '../../platform/config/platform.config';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { AuthService } from './auth.service';
import { LoginThrottle, memoryThrottleStore, type ThrottleStore } from './login.throttle';
import type { IdentityConfig } from './identity.config';
import type { IdentityUnitOfWork } from './identity.types';
import { ScryptPasswordHasher, type PasswordHasher } from './password.hasher';
import { RoleService } from './role.service';
import { ServiceAccountService } from './service-account.service';
import { TenantService } from './tenant.service';
import { CachedTokenVerifier } from './token.verifier';
import { UserService } from './user.service';
import { MfaService } from './mfa.service';
import { MfaPolicyService } from './mfa-policy.service';
import { MfaSignInService } from './mfa-sign-in.service';
import { SecretBox } from './secret.box';
import { SessionService } from './session.service';
import { WebauthnService } from './webauthn.service';
import { WebauthnSignInService } from './webauthn-sign-in.service';

export interface IdentityServices {
  auth: AuthService;
  users: UserService;
  tenants: TenantService;
  roles: RoleService;
  serviceAccounts: ServiceAccountService;
  mfa: MfaService;
  mfaSignIn: MfaSignInService;
  mfaPolicy: MfaPolicyService;
  sessions: SessionService;
  webauthn: WebauthnService;
  webauthnSignIn: WebauthnSignInService;
  verifier: CachedTokenVerifier;
  /** Operator cross-tenant checks and audit (shared with the OIDC client registration). */
  access: TenantAccess;
  hasher: PasswordHasher;
  config: IdentityConfig;
}

export function createIdentityServices(
  stores: IdentityUnitOfWork,
  platform: PlatformConfig,
  config: IdentityConfig,
  throttleStore: ThrottleStore = memoryThrottleStore(),
  /** The OIDC provider's tokens, verified against identity's own key table (oidc/oidc.module.ts). */
  asymmetric?: Pick<AccessTokens, 'verify'>,
): IdentityServices {
  const tokens = new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60);
  const verifier = asymmetric
    ? new CachedTokenVerifier(
        new DualTokenVerifier(tokens, asymmetric, { ttlMs: 0, maxEntries: 0 }),
        config.verifyCacheSize,
        Date.now,
        true,
      )
    : new CachedTokenVerifier(tokens, config.verifyCacheSize);
  const hasher = new ScryptPasswordHasher(config.scryptLogN);
  // An operator's action in another tenant reaches that tenant's ledger through the outbox.
  const access = new TenantAccess(
    (a) =>
      stores.outbox.append(
        auditEvent(a, {
          tenantId: a.tenantId,
          type: OPERATOR_ACCESS_EVENT,
          actor: a.operator,
          data: operatorAccessData(a),
        }),
      ),
    platform.auth.mfa,
  );
  // One throttle for passwords and second-factor codes: guessing either locks the account.
  const throttle = new LoginThrottle(throttleStore, config.loginThrottle);
  const mfaPolicy = new MfaPolicyService(stores, platform.auth.mfa, access);
  const mfa = new MfaService({
    stores,
    box: new SecretBox(config.mfa.key),
    issuer: config.mfa.issuer,
    access,
    requiredRoles: (s, tenantId) => mfaPolicy.requiredRoles(s, tenantId),
  });
  const auth = new AuthService({
    stores,
    hasher,
    tokens,
    verifier,
    refreshTokenDays: platform.auth.refreshTokenExpireDays,
    throttle,
  });
  const mfaSignIn = new MfaSignInService({
    stores,
    mfa,
    policy: mfaPolicy,
    sessions: auth.sessions,
    throttle,
    challengeSeconds: config.mfa.challengeSeconds,
    maxAttempts: config.mfa.maxAttempts,
  });
  auth.useSecondFactor(mfaSignIn);
  const webauthn = new WebauthnService({ stores, mfa, settings: config.webauthn });
  return {
    webauthn,
    webauthnSignIn: new WebauthnSignInService(mfaSignIn, webauthn),
    auth,
    mfa,
    mfaSignIn,
    mfaPolicy,
    sessions: new SessionService(stores, access),
    users: new UserService(stores, hasher, config.maxPageSize, access),
    tenants: new TenantService(stores),
    roles: new RoleService(stores, access),
    serviceAccounts: new ServiceAccountService(stores, hasher),
    verifier,
    access,
    hasher,
    config,
  };
}
