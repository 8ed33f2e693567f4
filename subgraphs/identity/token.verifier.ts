// Access-token verification with a small bounded LRU in front of jose. A hit skips the HMAC and
// JSON parsing; entries die at the token's own `exp`, so a cached answer is never more lenient
// than a fresh verification. Failures are not cached (they are cheap and unbounded in variety).
import type { AuthContext } from '../../platform/auth/auth-context';
import { contextFromClaims, type AccessTokens } from '../../platform/auth/jwt';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';

interface Entry {
  auth: AuthContext;
  expiresAtMs: number;
}

export class CachedTokenVerifier implements TokenAuthenticator {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly tokens: Pick<AccessTokens, 'verify'>,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.cache.size;
  }

  async authenticate(token: string): Promise<AuthContext> {
    const hit = this.cache.get(token);
    if (hit) {
      this.cache.delete(token);
      if (hit.expiresAtMs > this.now()) {
        this.cache.set(token, hit); // most recently used goes last
        return hit.auth;
      }
    }
    const claims = await this.tokens.verify(token);
    const auth = freeze(contextFromClaims(claims));
    if (this.maxEntries > 0) {
      this.cache.set(token, { auth, expiresAtMs: claims.exp * 1000 });
      while (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    }
    return auth;
  }
}

/** Cached contexts are shared between requests, so nobody may change them. */
function freeze(auth: AuthContext): AuthContext {
  Object.freeze(auth.roles);
  Object.freeze(auth.scopes);
  return Object.freeze(auth);
}
