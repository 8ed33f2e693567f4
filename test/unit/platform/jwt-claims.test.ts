// Access tokens are parsed, not trusted: a correctly signed token whose claims have the wrong
// types, or a token spelt other than as three canonical base64url segments, is refused with
// AuthenticationError (401), never accepted and never a TypeError (500).
import { SignJWT } from 'jose';
import { AccessTokens, isCompactJws } from '../../../platform/auth/jwt';
import { AuthenticationError } from '../../../platform/errors/domain-errors';
import { TEST_JWT_SECRET } from '../../support/service-harness';

const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const key = new TextEncoder().encode(TEST_JWT_SECRET);
const now = Math.floor(Date.now() / 1000);
const good = {
  sub: 'alice',
  tenant_id: 'acme',
  roles: ['user'],
  scopes: ['read'],
  iss: 'platform-identity',
  iat: now,
  exp: now + 600,
};

/** Signs any claims with the real key, bypassing AccessTokens.issue's types. */
function sign(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key);
}

describe('claim types', () => {
  it('accepts well-typed claims signed with the key', async () => {
    await expect(tokens.authenticate(await sign(good))).resolves.toEqual({
      username: 'alice',
      tenantId: 'acme',
      roles: ['user'],
      scopes: ['read'],
      isService: false,
    });
  });

  it.each([
    ['roles a string', { roles: 'admin' }],
    ['roles with a number', { roles: ['user', 1] }],
    ['roles with an object', { roles: [{ startsWith: 'x' }] }],
    ['roles missing', { roles: undefined }],
    ['scopes a string', { scopes: 'admin' }],
    ['scopes with null', { scopes: [null] }],
    ['sub a number', { sub: 5 }],
    ['sub empty', { sub: '' }],
    ['sub missing', { sub: undefined }],
    ['tenant_id a number', { tenant_id: 7 }],
    ['tenant_id empty', { tenant_id: '' }],
    ['tenant_id a list', { tenant_id: ['acme'] }],
    ['iat missing', { iat: undefined }],
    ['iat a string', { iat: String(now) }],
    ['exp a string', { exp: String(now + 600) }],
    ['exp missing', { exp: undefined }],
    ['iss another issuer', { iss: 'someone-else' }],
    ['iss missing', { iss: undefined }],
  ])('refuses a signed token with %s', async (_label, change) => {
    const token = await sign({ ...good, ...change });
    await expect(tokens.verify(token)).rejects.toThrow(AuthenticationError);
    await expect(tokens.authenticate(token)).rejects.toThrow(AuthenticationError);
  });
});

describe('token form (checked before jose, which is lenient)', () => {
  let token: string;
  beforeAll(async () => {
    token = await sign(good);
  });

  it('accepts the token as issued', async () => {
    expect(isCompactJws(token)).toBe(true);
    await expect(tokens.verify(token)).resolves.toMatchObject({ sub: 'alice' });
  });

  it.each([
    ['with = appended (jose accepts it)', (t: string) => `${t}=`],
    ['with == appended', (t: string) => `${t}==`],
    ['with = after the payload', (t: string) => t.replace(/\.([^.]+)\./, '.$1=.')],
    ['with a trailing space (jose accepts it)', (t: string) => `${t} `],
    ['with a newline inside the signature (jose accepts it)', (t: string) => `${t.slice(0, -10)}\n${t.slice(-10)}`],
    [
      "with the signature's unused low bits changed (jose accepts it)",
      (t: string) => {
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        return t.slice(0, -1) + alphabet[alphabet.indexOf(t.at(-1)!) ^ 1];
      },
    ],
    [
      'in standard base64 (+ and /)',
      (t: string) => t.replace(/-/g, '+').replace(/_/g, '/') + (t.includes('-') || t.includes('_') ? '' : '+'),
    ],
    ['with a fourth segment', (t: string) => `${t}.AAAA`],
    ['with only two segments', (t: string) => t.split('.').slice(0, 2).join('.')],
    ['with an empty segment', (t: string) => t.replace(/\.[^.]+$/, '.')],
    ['far too long', (t: string) => t + 'A'.repeat(10_000)],
  ])('refuses the token %s', async (_label, spoil) => {
    const spoilt = spoil(token);
    expect(spoilt).not.toBe(token);
    expect(isCompactJws(spoilt)).toBe(false);
    await expect(tokens.verify(spoilt)).rejects.toThrow(AuthenticationError);
  });
});
