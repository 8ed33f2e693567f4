// The platform's one tenant rule: a tenant admin is not a platform operator; operators and
// services cross tenants, and an operator's access is recorded in the tenant it touched.
import type { AuthContext } from '../../../platform/auth/auth-context';
import { TenantAccess, type OperatorAccess } from '../../../platform/auth/tenant-access';
import { effectiveTenant, mayActPlatformWide, resolveTenant } from '../../../platform/auth/tenant.rule';
import { ForbiddenError, InputError } from '../../../platform/errors/domain-errors';

const who = (tenantId: string, roles = ['user']): AuthContext => ({
  username: 'u',
  tenantId,
  roles,
  scopes: ['read'],
  isService: roles.some((r) => r.startsWith('service:')),
});
const caller = (auth?: AuthContext, headerTenant?: string) => ({ auth, headerTenant, correlationId: 'c' });

describe('resolveTenant', () => {
  it("uses the token's tenant and refuses others, whatever the header says", () => {
    expect(resolveTenant(caller(who('a')), undefined, ['q'])).toBe('a');
    expect(resolveTenant(caller(who('a')), 'a', ['q'])).toBe('a');
    expect(() => resolveTenant(caller(who('a')), 'b', ['q'])).toThrow(ForbiddenError);
    expect(() => resolveTenant(caller(who('a'), 'b'), 'b', ['q'])).toThrow(ForbiddenError);
  });

  it("a tenant admin, the default tenant's included, stays in its tenant", () => {
    expect(() => resolveTenant(caller(who('default', ['admin', 'user'])), 'b', ['q'])).toThrow(ForbiddenError);
    expect(() => resolveTenant(caller(who('a', ['admin'])), 'b', ['q'])).toThrow(ForbiddenError);
  });

  it('platform operators and service accounts act for any tenant', () => {
    expect(resolveTenant(caller(who('platform', ['platform-admin'])), 'b', ['q'])).toBe('b');
    expect(resolveTenant(caller(who('x', ['service:workflow'])), 'b', ['q'])).toBe('b');
  });

  it('anonymous callers: header and requested tenant must agree; one of them is required', () => {
    expect(resolveTenant(caller(undefined, 'a'), undefined, ['q'])).toBe('a');
    expect(resolveTenant(caller(), 'a', ['q'])).toBe('a');
    expect(() => resolveTenant(caller(undefined, 'a'), 'b', ['q'])).toThrow(ForbiddenError);
    expect(() => resolveTenant(caller(), undefined, ['tenantId'])).toThrow(InputError);
  });

  it('only operators, services and unpinned anonymous callers act platform-wide', () => {
    expect(mayActPlatformWide(caller(who('platform', ['platform-admin'])))).toBe(true);
    expect(mayActPlatformWide(caller(who('default', ['admin'])))).toBe(false);
    expect(mayActPlatformWide(caller(who('a')))).toBe(false);
    expect(mayActPlatformWide(caller(undefined, 'a'))).toBe(false);
    expect(mayActPlatformWide(caller())).toBe(true);
  });
});

describe('effectiveTenant (gateway and router)', () => {
  it('refuses a tenant admin naming another tenant in header, query or body', () => {
    const admin = who('default', ['admin', 'user']);
    expect(() => effectiveTenant(admin, { header: 'other' })).toThrow(ForbiddenError);
    expect(() => effectiveTenant(admin, { query: { tenant_id: 'other' } })).toThrow(ForbiddenError);
    expect(() => effectiveTenant(admin, { body: { tenant_id: 'other' } })).toThrow(ForbiddenError);
    expect(effectiveTenant(admin, { header: 'default' })).toBe('default');
  });

  it('lets an operator name one tenant, never two', () => {
    const op = who('platform', ['platform-admin']);
    expect(effectiveTenant(op, { header: 'acme' })).toBe('acme');
    expect(() => effectiveTenant(op, { header: 'acme', body: { tenant_id: 'globex' } })).toThrow(ForbiddenError);
  });
});

describe('TenantAccess', () => {
  it("records an operator's action in the tenant it touched, and nothing for ordinary callers or services", async () => {
    const recorded: OperatorAccess[] = [];
    const access = new TenantAccess(async (a) => {
      recorded.push(a);
    });
    await access.resolve(caller(who('a')), 'a', ['q'], 'x.read');
    await access.resolve(caller(who('svc', ['service:relay'])), 'b', ['q'], 'x.write');
    await access.resolve(caller(who('platform', ['platform-admin'])), 'platform', ['q'], 'x.home');
    await access.resolve(caller(who('platform', ['platform-admin'])), 'acme', ['q'], 'x.list');
    expect(recorded).toEqual([
      { tenantId: 'acme', operator: 'u', operatorTenant: 'platform', action: 'x.list', correlationId: 'c' },
    ]);
  });

  it('records nothing when the access is refused', async () => {
    const recorded: OperatorAccess[] = [];
    const access = new TenantAccess(async (a) => {
      recorded.push(a);
    });
    await expect(access.resolve(caller(who('default', ['admin'])), 'acme', ['q'], 'x')).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expect(recorded).toEqual([]);
  });
});
