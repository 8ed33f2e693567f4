// Access-token verification for /v1/auth/verify and the subgraph, with the platform's bounded
// token cache in front of jose: a hit skips the HMAC and JSON parsing; entries die at the
// token's own `exp`. Failures are not cached (they are cheap and unbounded in variety). With the
// OIDC provider's keys, `tokens` is a DualTokenVerifier (HS256 legacy + the provider's asymmetric tokens).
import type { AuthContext } from '../../platform/auth/auth-context';
import { verifiedOf, type AccessTokens } from '../../platform/auth/jwt';
import { TokenCache } from '../../platform/auth/token-cache';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';

export class CachedTokenVerifier implements TokenAuthenticator {
  private readonly cache: TokenCache;

  constructor(
    private readonly tokens: Pick<AccessTokens, 'verify'>,
    maxEntries: number,
    now: () => number = Date.now,
    readonly verifiesAsymmetric = false,
  ) {
    this.cache = new TokenCache(Infinity, maxEntries, now);
  }

  get size(): number {
    return this.cache.size;
  }

  cached(token: string): AuthContext | undefined {
    return this.cache.get(token);
  }

  authenticate(token: string): Promise<AuthContext> {
    return this.cache.authenticate(token, () => this.tokens.verify(token).then(verifiedOf));
  }
}
