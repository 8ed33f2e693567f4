// Hand-made bad tokens for the 401 tests.
import { SignJWT } from 'jose';
import { TEST_JWT_SECRET } from '../../support/service-harness';

const claims = { tenant_id: 'default', roles: ['admin', 'user'], scopes: ['admin', 'read', 'write'] };

export async function signed(
  secret: string,
  opts: { expSecondsFromNow?: number; issuer?: string; sub?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(opts.sub ?? 'root')
    .setIssuer(opts.issuer ?? 'platform-identity')
    .setIssuedAt(now - 3600)
    .setExpirationTime(now + (opts.expSecondsFromNow ?? 3600))
    .sign(new TextEncoder().encode(secret));
}

export async function badTokens(): Promise<[string, string][]> {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { sub: 'root', ...claims, iat: now, exp: now + 3600, iss: 'platform-identity' };
  const good = await signed(TEST_JWT_SECRET);
  const [h, p] = good.split('.');
  return [
    ['expired', await signed(TEST_JWT_SECRET, { expSecondsFromNow: -60 })],
    ['signed with another key', await signed('another-secret-that-is-also-long-enough-0123456789')],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`],
    ['alg none with a signature', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.${good.split('.')[2]}`],
    [
      'payload swapped under a valid signature',
      `${h}.${b64({ ...payload, sub: 'someone-else' })}.${good.split('.')[2]}`,
    ],
    ['wrong issuer', await signed(TEST_JWT_SECRET, { issuer: 'someone-else' })],
    ['malformed', 'not-a-jwt'],
    ['malformed base64', `${h}.${p}!!.abc`],
  ];
}
