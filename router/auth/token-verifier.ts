// How the gateway turns a bearer token into an AuthContext. Two strategies, both behind a short
// bounded cache (see docs/router.md for the measured costs and why `local` is the default):
// - local: HS256 verification with the shared JWT_SECRET_KEY (no network hop), and the OIDC
//   provider's EdDSA/RS256 tokens against its JWKS (fetched once, cached; an unknown kid refetches
//   at most every 30 s), each algorithm pinned to its own verifier (platform/auth/asymmetric-tokens.ts);
// - identity: identity's GET /v1/auth/verify, as spec 01 rule 6 describes (it verifies both kinds).
import type { AuthContext } from '../../platform/auth/auth-context';
import { AccessTokens, contextFromClaims } from '../../platform/auth/jwt';
import { IdentityClient } from '../../platform/clients/identity.client';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { TokenCache } from '../../platform/auth/token-cache';
import { AsymmetricTokens, DualTokenVerifier } from '../../platform/auth/asymmetric-tokens';
import type { OidcVerification } from '../../platform/config/platform.config';
import { decodeJwt } from 'jose';

export interface TokenVerifierOptions {
  strategy: 'local' | 'identity';
  jwtSecret: string;
  identityUrl: string;
  oidc: OidcVerification;
  cache: { ttlMs: number; maxEntries: number };
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenAuthenticator {
  const cache = new TokenCache(options.cache.ttlMs, options.cache.maxEntries);
  const tokens = new DualTokenVerifier(
    new AccessTokens(options.jwtSecret, 0),
    AsymmetricTokens.remote(options.oidc.jwksUrl, options.oidc.issuer, options.oidc.jwksCacheSeconds),
    { ttlMs: 0, maxEntries: 0 },
  );
  const identity = new IdentityClient(options.identityUrl);
  return {
    verifiesAsymmetric: true,
    cached: (token) => cache.get(token),
    async authenticate(token: string): Promise<AuthContext> {
      const cached = cache.get(token);
      if (cached) return cached;
      let auth: AuthContext;
      let expMs: number;
      if (options.strategy === 'local') {
        const claims = await tokens.verify(token);
        auth = contextFromClaims(claims);
        expMs = claims.exp * 1000;
      } else {
        auth = await identity.verify(token);
        // The cache never outlives the token: its exp is readable without the key.
        expMs = expiryMs(token) ?? Date.now();
      }
      return cache.set(token, auth, expMs);
    },
  };
}

function expiryMs(token: string): number | undefined {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
