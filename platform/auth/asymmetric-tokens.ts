// Asymmetric access tokens: the ones identity's OpenID Connect provider signs (EdDSA Ed25519 or
// RS256, `typ: at+jwt`), verified against the provider's published key set. The HS256 tokens of
// AccessTokens stay the legacy path (docs/identity.md). The algorithm is chosen by the token's
// header only to pick WHICH verifier runs; each verifier then pins its own algorithms and key type,
// so `alg: none`, an unknown alg, and an HS256 token "signed" with a public key are all refused:
// HS256 goes to the shared-secret verifier (which the public key is not), EdDSA/RS256 to the key
// set (whose keys jose uses only for their own algorithm).
import { createRemoteJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { OidcVerification } from '../config/platform.config';
import { AuthenticationError } from '../errors/domain-errors';
import type { TokenAuthenticator } from '../http/auth-hooks';
import type { AuthContext } from './auth-context';
import { isCompactJws, parseClaims, verifiedOf, type AccessClaims } from './jwt';
import { TokenCache } from './token-cache';

/** The audience (RFC 8707 resource) of access tokens meant for the platform's APIs. */
export const PLATFORM_AUDIENCE = 'urn:regulated-platform:api';
export const ASYMMETRIC_ALGORITHMS = ['EdDSA', 'RS256'] as const;
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

export class AsymmetricTokens {
  constructor(
    private readonly keys: JWTVerifyGetKey,
    private readonly issuer: string,
  ) {}

  /** Over the provider's JWKS URL: keys cached `cacheSeconds`; an unknown kid refetches at most every 30 s. */
  static remote(jwksUrl: string, issuer: string, cacheSeconds: number): AsymmetricTokens {
    const keys = createRemoteJWKSet(new URL(jwksUrl), {
      cacheMaxAge: cacheSeconds * 1000,
      cooldownDuration: 30_000,
      timeoutDuration: 5_000,
    });
    return new AsymmetricTokens(keys, issuer);
  }

  async verify(token: string): Promise<AccessClaims> {
    if (!isCompactJws(token)) throw new AuthenticationError();
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        algorithms: [...ASYMMETRIC_ALGORITHMS],
        issuer: this.issuer,
        audience: PLATFORM_AUDIENCE,
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      return parseClaims(payload, this.issuer);
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof joseErrors.JOSEError || err instanceof TypeError)
        throw new AuthenticationError();
      throw err;
    }
  }
}

export type TokenKind = 'symmetric' | 'asymmetric';

/**
 * The kind of each protected header seen lately, by its encoded text. Tokens from one issuer share
 * a handful of headers (one per key), so every service's per-request dispatch (acceptingAsymmetric,
 * before its caches) is a lookup instead of a base64url decode and a JSON parse (issue 35).
 * Bounded: past HEADER_KINDS_MAX distinct headers it starts over.
 */
const headerKinds = new Map<string, TokenKind | undefined>();
const HEADER_KINDS_MAX = 256;

/** Which verifier a token goes to; undefined (refused) for `none`, unknown algorithms or a malformed header. */
export function tokenKind(token: string): TokenKind | undefined {
  const header = token.slice(0, Math.max(0, token.indexOf('.')));
  // A known header says which verifier; that verifier checks the whole token (or finds it, exactly
  // as it verified it before, in its cache), so a malformed rest is refused there.
  if (headerKinds.has(header)) return headerKinds.get(header);
  if (!isCompactJws(token)) return undefined;
  const kind = kindOfHeader(token);
  if (headerKinds.size >= HEADER_KINDS_MAX) headerKinds.clear();
  headerKinds.set(header, kind);
  return kind;
}

function kindOfHeader(token: string): TokenKind | undefined {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
  if (alg === 'HS256') return 'symmetric';
  if ((ASYMMETRIC_ALGORITHMS as readonly unknown[]).includes(alg)) return 'asymmetric';
  return undefined;
}

interface Verifier {
  verify(token: string): Promise<AccessClaims>;
}

/**
 * HS256 (legacy) and asymmetric tokens behind one bounded cache of verified contexts. A cached
 * context dies at the token's own `exp`; failures are never cached.
 */
export class DualTokenVerifier implements TokenAuthenticator {
  readonly verifiesAsymmetric = true;
  private readonly cache: TokenCache;

  constructor(
    private readonly symmetric: Verifier,
    private readonly asymmetric: Verifier,
    cache: { ttlMs: number; maxEntries: number },
  ) {
    this.cache = new TokenCache(cache.ttlMs, cache.maxEntries);
  }

  get size(): number {
    return this.cache.size;
  }

  async verify(token: string): Promise<AccessClaims> {
    const kind = tokenKind(token);
    if (kind === 'symmetric') return this.symmetric.verify(token);
    if (kind === 'asymmetric') return this.asymmetric.verify(token);
    throw new AuthenticationError();
  }

  cached(token: string): AuthContext | undefined {
    return this.cache.get(token);
  }

  authenticate(token: string): Promise<AuthContext> {
    return this.cache.authenticate(token, () => this.verify(token).then(verifiedOf));
  }
}

/**
 * A service's authenticator that also accepts the provider's asymmetric tokens, checked against the
 * JWKS (platform config `auth.oidc`). HS256 tokens still go to the service's own authenticator.
 * An authenticator that already handles both (identity's, over its own key table) is kept as is.
 */
export function acceptingAsymmetric(
  tokens: TokenAuthenticator,
  oidc: Pick<OidcVerification, 'issuer' | 'jwksUrl' | 'jwksCacheSeconds'>,
): TokenAuthenticator {
  if (tokens.verifiesAsymmetric) return tokens;
  const asymmetric = AsymmetricTokens.remote(oidc.jwksUrl, oidc.issuer, oidc.jwksCacheSeconds);
  const cache = new TokenCache(Infinity, 10_000);
  return {
    verifiesAsymmetric: true,
    cached(token: string): AuthContext | undefined {
      // The service's own cache first: a token there was verified by the HS256 verifier, so it is
      // not asymmetric, and the usual request skips reading its header (issue 30). A miss there
      // falls through to the kind, exactly as before.
      return tokens.cached?.(token) ?? (tokenKind(token) === 'asymmetric' ? cache.get(token) : undefined);
    },
    authenticate(token: string): Promise<AuthContext> {
      if (tokenKind(token) !== 'asymmetric') return tokens.authenticate(token);
      return cache.authenticate(token, () => asymmetric.verify(token).then(verifiedOf));
    },
  };
}
