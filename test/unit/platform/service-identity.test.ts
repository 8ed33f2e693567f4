// The credentials of a service-to-service call: the caller's token as it came; for a caller
// without one, the calling service's identity scoped to the caller's tenant (never platform-wide);
// without a tenant, nothing.
import { AccessTokens } from '../../../platform/auth/jwt';
import { ServiceIdentity, TENANT_DELEGATE_ROLE } from '../../../platform/auth/service-identity';
import { canActForTenant } from '../../../platform/auth/tenant.rule';
import { isPlatformOperator } from '../../../platform/auth/auth-context';
import { credentialHeaders } from '../../../platform/clients/service-request';

const SECRET = 'unit-secret-that-is-long-enough-for-hs256-0123456789';
const verify = (token: string) => new AccessTokens(SECRET, 60).authenticate(token);
const bearer = (headers: Record<string, string>) => headers.authorization?.replace(/^Bearer /, '');

describe('credentialHeaders', () => {
  const identity = new ServiceIdentity(SECRET, 'workflow');

  it("forwards a caller's own token as it came", async () => {
    const h = await credentialHeaders({ token: 'callers-token', tenantId: 't1', correlationId: 'c1' }, identity);
    expect(h).toEqual({ authorization: 'Bearer callers-token', 'x-tenant-id': 't1', 'x-correlation-id': 'c1' });
  });

  it("gives a caller without a token the service's identity for that tenant, and nothing more", async () => {
    const h = await credentialHeaders({ tenantId: 't1' }, identity);
    expect(h['x-tenant-id']).toBe('t1');
    const auth = await verify(bearer(h)!);
    expect(auth).toEqual({
      username: 'workflow-service',
      tenantId: 't1',
      roles: [TENANT_DELEGATE_ROLE],
      scopes: ['read', 'write'],
      isService: false,
    });
    expect(canActForTenant(auth, 't1')).toBe(true);
    expect(canActForTenant(auth, 't2')).toBe(false);
    expect(isPlatformOperator(auth)).toBe(false);
  });

  it('mints one token per tenant (cached), each for its own tenant', async () => {
    const a = await identity.tokenFor('t1');
    expect(await identity.tokenFor('t1')).toBe(a);
    expect((await verify(await identity.tokenFor('t2'))).tenantId).toBe('t2');
  });

  it('sends no credentials for a call in no tenant, or from a client built without an identity', async () => {
    expect(await credentialHeaders({ correlationId: 'c1' }, identity)).toEqual({ 'x-correlation-id': 'c1' });
    expect(await credentialHeaders({ tenantId: 't1' })).toEqual({ 'x-tenant-id': 't1' });
  });
});
