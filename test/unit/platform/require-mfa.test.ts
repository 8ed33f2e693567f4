// The platform's step-up rule (platform/auth/require-mfa.ts), the operator's cross-tenant check in
// TenantAccess, the MFA policy setting in PlatformConfig, and how the refusal reaches GraphQL.
import type { AuthContext } from '../../../platform/auth/auth-context';
import { acrOf, hasSecondFactor } from '../../../platform/auth/mfa';
import { MfaRequiredError, requireMfa } from '../../../platform/auth/require-mfa';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { ConfigError } from '../../../platform/config/env';
import { formatGraphQLError } from '../../../platform/graphql/errors';

const policy = { requiredRoles: ['admin', 'reviewer', 'platform-admin'] };
const person = (roles: string[], amr?: string[]): AuthContext => ({
  username: 'rita',
  tenantId: 'default',
  roles,
  scopes: ['read'],
  isService: false,
  ...(amr ? { amr } : {}),
});

describe('requireMfa', () => {
  it('demands a second factor of covered roles only', () => {
    expect(() => requireMfa(person(['reviewer'], ['pwd']), policy, 'certify')).toThrow(MfaRequiredError);
    expect(() => requireMfa(person(['reviewer']), policy, 'certify')).toThrow(MfaRequiredError);
    expect(() => requireMfa(person(['reviewer'], ['pwd', 'otp']), policy, 'certify')).not.toThrow();
    expect(() => requireMfa(person(['reviewer'], ['pwd', 'hwk']), policy, 'certify')).not.toThrow();
    expect(() => requireMfa(person(['user'], ['pwd']), policy, 'certify')).not.toThrow();
    expect(() => requireMfa(person(['reviewer'], ['pwd']), { requiredRoles: [] }, 'certify')).not.toThrow();
    expect(() =>
      requireMfa({ ...person(['service:x', 'reviewer']), isService: true }, policy, 'certify'),
    ).not.toThrow();
    expect(() => requireMfa(undefined, policy, 'certify')).not.toThrow();
  });

  it('refuses with a 403 whose detail says what to do, and GraphQL FORBIDDEN with reason mfa_required', () => {
    const err = new MfaRequiredError('decide an approval');
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toBe(
      'Multi-factor authentication required to decide an approval: sign in again with your second factor',
    );
    const formatted = formatGraphQLError({ message: err.message }, err);
    expect(formatted.extensions).toEqual({ code: 'FORBIDDEN', reason: 'mfa_required' });
  });

  it('amr and acr', () => {
    expect(hasSecondFactor(['pwd'])).toBe(false);
    expect(hasSecondFactor(undefined)).toBe(false);
    expect(hasSecondFactor(['pwd', 'otp'])).toBe(true);
    expect(acrOf(['pwd'])).toBe('aal1');
    expect(acrOf(['pwd', 'otp'])).toBe('aal2');
  });
});

describe('TenantAccess with an MFA policy', () => {
  const operator = (amr: string[]): AuthContext => ({
    username: 'op',
    tenantId: 'platform',
    roles: ['platform-admin'],
    scopes: ['admin'],
    isService: false,
    amr,
  });

  it("an operator's action in another tenant needs a second factor; in its own tenant it does not", async () => {
    const audited: string[] = [];
    const access = new TenantAccess(async (a) => void audited.push(a.tenantId), policy);
    await expect(
      access.resolve({ auth: operator(['pwd']), correlationId: 'c' }, 'default', ['tenantId'], 'x.list'),
    ).rejects.toBeInstanceOf(MfaRequiredError);
    expect(audited).toEqual([]);
    await expect(
      access.resolve({ auth: operator(['pwd']), correlationId: 'c' }, 'platform', ['tenantId'], 'x.list'),
    ).resolves.toBe('platform');
    await expect(
      access.resolve({ auth: operator(['pwd', 'otp']), correlationId: 'c' }, 'default', ['tenantId'], 'x.list'),
    ).resolves.toBe('default');
    expect(audited).toEqual(['default']);
  });

  it('without a policy (the default) nothing changes', async () => {
    const access = new TenantAccess(async () => {});
    await expect(
      access.resolve({ auth: operator(['pwd']), correlationId: 'c' }, 'default', ['tenantId'], 'x.list'),
    ).resolves.toBe('default');
    expect(() =>
      access.requireMfa({ auth: person(['reviewer'], ['pwd']), correlationId: 'c' }, 'certify'),
    ).not.toThrow();
  });
});

describe('IDENTITY_MFA_REQUIRED_ROLES', () => {
  const roles = (env: Record<string, string>) => loadPlatformConfig(env).auth.mfa.requiredRoles;
  it("defaults to the issue's roles, and to none under NODE_ENV=test", () => {
    expect(roles({})).toEqual(['admin', 'reviewer', 'platform-admin']);
    expect(roles({ NODE_ENV: 'production' })).toEqual(['admin', 'reviewer', 'platform-admin']);
    expect(roles({ NODE_ENV: 'test' })).toEqual([]);
  });
  it('takes a comma list or none, and refuses what is not a role name', () => {
    expect(roles({ IDENTITY_MFA_REQUIRED_ROLES: ' admin , auditor,admin' })).toEqual(['admin', 'auditor']);
    expect(roles({ IDENTITY_MFA_REQUIRED_ROLES: 'none' })).toEqual([]);
    expect(roles({ NODE_ENV: 'test', IDENTITY_MFA_REQUIRED_ROLES: 'reviewer' })).toEqual(['reviewer']);
    expect(() => roles({ IDENTITY_MFA_REQUIRED_ROLES: 'admin,bad role' })).toThrow(ConfigError);
  });
});
