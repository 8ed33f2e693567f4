import type { AccessClaims } from '../../../platform/auth/jwt';
import { AuthenticationError } from '../../../platform/errors/domain-errors';
import { CachedTokenVerifier } from '../../../subgraphs/identity/token.verifier';

function claims(sub: string, exp: number): AccessClaims {
  return { sub, tenant_id: 'default', roles: ['user'], scopes: ['read'], exp, iat: exp - 60, iss: 'platform-identity' };
}

describe('CachedTokenVerifier', () => {
  it('verifies once and answers repeats from the cache', async () => {
    const verify = jest.fn(async (t: string) => claims(t, 2_000));
    const v = new CachedTokenVerifier({ verify }, 10, () => 1_000_000);
    const a = await v.authenticate('tok');
    const b = await v.authenticate('tok');
    expect(verify).toHaveBeenCalledTimes(1);
    expect(b).toEqual(a);
    expect(a).toMatchObject({ username: 'tok', tenantId: 'default', roles: ['user'], isService: false });
  });

  it('never answers from the cache after the token expired', async () => {
    let now = 1_000_000;
    const verify = jest.fn(async (t: string) => {
      if (now >= 2_000_000) throw new AuthenticationError();
      return claims(t, 2_000);
    });
    const v = new CachedTokenVerifier({ verify }, 10, () => now);
    await v.authenticate('tok');
    now = 2_000_000;
    await expect(v.authenticate('tok')).rejects.toBeInstanceOf(AuthenticationError);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('is bounded: the least recently used entry goes first', async () => {
    const verify = jest.fn(async (t: string) => claims(t, 9_999_999));
    const v = new CachedTokenVerifier({ verify }, 2, () => 0);
    await v.authenticate('a');
    await v.authenticate('b');
    await v.authenticate('a'); // a is now the most recent
    await v.authenticate('c'); // evicts b
    expect(v.size).toBe(2);
    verify.mockClear();
    await v.authenticate('a');
    expect(verify).not.toHaveBeenCalled();
    await v.authenticate('b');
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('does not cache failures', async () => {
    const verify = jest.fn(async () => {
      throw new AuthenticationError();
    });
    const v = new CachedTokenVerifier({ verify }, 10);
    await expect(v.authenticate('bad')).rejects.toBeInstanceOf(AuthenticationError);
    await expect(v.authenticate('bad')).rejects.toBeInstanceOf(AuthenticationError);
    expect(verify).toHaveBeenCalledTimes(2);
    expect(v.size).toBe(0);
  });

  it("hands out frozen contexts, so one request cannot change another's", async () => {
    const v = new CachedTokenVerifier({ verify: async (t: string) => claims(t, 9_999_999) }, 10, () => 0);
    const auth = await v.authenticate('tok');
    expect(() => (auth.roles as string[]).push('admin')).toThrow();
  });
});
