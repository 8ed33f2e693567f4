// Gateway token verification by algorithm, in the same run: HS256 (the legacy shared secret)
// against EdDSA (Ed25519) and RS256 tokens verified from a JWKS, through the gateway's own
// verifier (router/auth/token-verifier.ts, `local` strategy). The JWKS is served over HTTP by a
// throwaway server here, fetched once and cached as in production. Two settings:
//   - cache off (every token new to the gateway): the signature check is the whole cost;
//   - cache on (the default: the same token again): the gateway's LRU answers.
// Tokens carry the claims the provider issues. Measured on this thread: verifications per second
// per CPU-second of this process (a loaded machine's waiting excluded). Numbers only.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, type JWK } from 'jose';
import { PLATFORM_AUDIENCE } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { createTokenVerifier } from '../router/auth/token-verifier';

const ISSUER = 'http://127.0.0.1/oidc';
const claims = { tenant_id: 'default', roles: ['user'], scopes: ['read'] };

export interface JwksFigures {
  alg: string;
  cacheOff: number;
  cacheOn: number;
}

/** Operations per CPU-second of this process (user + system time), so a loaded machine's waiting does not count. */
async function rate(seconds: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const cpu0 = process.cpuUsage();
  let n = 0;
  while (process.hrtime.bigint() < end) {
    // Small batches keep the loop honest about promise overhead without timing each call.
    for (let b = 0; b < 50; b++) await work(n++);
  }
  const cpu = process.cpuUsage(cpu0);
  return n / ((cpu.user + cpu.system) / 1e6);
}

export async function measureJwks(seconds = 3): Promise<JwksFigures[]> {
  const ed = generateKeyPairSync('ed25519');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = (k: typeof ed.publicKey, alg: string, kid: string): JWK => ({
    ...(k.export({ format: 'jwk' }) as JWK),
    alg,
    kid,
    use: 'sig',
  });
  const jwks = { keys: [jwk(ed.publicKey, 'EdDSA', 'ed'), jwk(rsa.publicKey, 'RS256', 'rs')] };
  const server = createServer((_req, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify(jwks)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  const secret = randomBytes(48).toString('base64url');
  const verifier = (cache: boolean) =>
    createTokenVerifier({
      strategy: 'local',
      jwtSecret: secret,
      identityUrl: '',
      oidc: { issuer: ISSUER, jwksUrl, jwksCacheSeconds: 300 },
      cache: cache ? { ttlMs: 30_000, maxEntries: 10_000 } : { ttlMs: 0, maxEntries: 0 },
    });
  const hs = new AccessTokens(secret, 3600);
  // Distinct tokens (a different sub each) so "cache off" never verifies the same bytes twice in a row.
  const count = 2000;
  const make = async (alg: string, i: number): Promise<string> => {
    if (alg === 'HS256') return hs.issue({ username: `u${i}`, tenantId: 'default', roles: ['user'], scopes: ['read'] });
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg, typ: 'at+jwt', kid: alg === 'EdDSA' ? 'ed' : 'rs' })
      .setSubject(`u${i}`)
      .setIssuer(ISSUER)
      .setAudience(PLATFORM_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(alg === 'EdDSA' ? ed.privateKey : rsa.privateKey);
  };
  try {
    const figures: JwksFigures[] = [];
    for (const alg of ['HS256', 'EdDSA', 'RS256']) {
      const tokens = await Promise.all(Array.from({ length: count }, (_, i) => make(alg, i)));
      const off = verifier(false);
      const on = verifier(true);
      await off.authenticate(tokens[0]!); // fetches the JWKS once
      await rate(0.5, (i) => off.authenticate(tokens[i % count]!)); // warm-up
      const cacheOff = await rate(seconds, (i) => off.authenticate(tokens[i % count]!));
      const cacheOn = await rate(seconds, (i) => on.authenticate(tokens[i % 100]!));
      figures.push({ alg, cacheOff, cacheOn });
    }
    return figures;
  } finally {
    server.close();
  }
}

export function printJwks(figures: JwksFigures[]): void {
  const hs = figures.find((f) => f.alg === 'HS256')!;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  for (const f of figures) {
    console.log(
      `gateway verification ${f.alg.padEnd(5)} (one core): cache off ${fmt(f.cacheOff)}/s (${(f.cacheOff / hs.cacheOff).toFixed(2)}x HS256), cache on ${fmt(f.cacheOn)}/s (${(f.cacheOn / hs.cacheOn).toFixed(2)}x HS256)`,
    );
  }
}
