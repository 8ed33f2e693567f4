// HS256 access tokens with jose. Claims are exactly spec 01's table: sub, tenant_id, roles,
// scopes, exp, iat, iss (= platform-identity). Only HS256 is accepted, so `alg: none` and
// tokens signed with another algorithm or key are refused. Two guards around jose:
// - before it, the token must be exactly three canonical base64url segments: jose's decoder
//   accepts a trailing `=`, whitespace and signatures whose unused low bits differ, so one
//   signed token would otherwise have many accepted spellings (and cache entries);
// - after it, the claims are parsed, not trusted: a correctly signed token with `roles: "admin"`
//   or `sub: 5` is a 401, never a 500 or a context with the wrong types.
// Beyond spec 01's claims, tokens from a person's login say how it was authenticated: `amr`
// (RFC 8176 method values) and `acr` (aal1 / aal2), plus `sid`, the session (refresh-token
// family) they came from. Each is optional, so tokens issued before them still verify.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AuthenticationError } from '../errors/domain-errors';
import type { AuthContext } from './auth-context';
import { TokenCache, type Verified } from './token-cache';

export const ISSUER = 'platform-identity';
export const SERVICE_ROLE_PREFIX = 'service:';

export interface AccessClaims {
  sub: string;
  tenant_id: string;
  roles: string[];
  scopes: string[];
  exp: number;
  iat: number;
  iss: string;
  /** Authentication methods (RFC 8176): ['pwd'], ['pwd', 'otp'], later 'hwk'/'swk'. */
  amr?: string[];
  /** Assurance level: 'aal1' (one factor) or 'aal2' (two factors), after NIST SP 800-63B. */
  acr?: string;
  /** The session (refresh-token family) the token belongs to. */
  sid?: string;
}

/** What identity knows about how the subject signed in; absent for service tokens. */
export interface SignInClaims {
  amr?: string[];
  acr?: string;
  sid?: string;
}

export class AccessTokens {
  private readonly key: Uint8Array;
  /**
   * Verified tokens, until their own expiry (10,000 at most, least recently used out first). A
   * signature check is an HMAC through WebCrypto's thread pool plus a key import per call: a
   * quarter of the ledger's CPU per append under load (issue 35's profile). An access token cannot
   * be revoked before it expires, so a cached answer is never more permissive than a fresh one.
   */
  private readonly verified = new TokenCache(Infinity, 10_000);

  constructor(
    secret: string,
    private readonly lifetimeSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  get expiresIn(): number {
    return this.lifetimeSeconds;
  }

  async issue(
    subject: { username: string; tenantId: string; roles: string[]; scopes: string[] } & SignInClaims,
    now = Date.now(),
  ): Promise<string> {
    const iat = Math.floor(now / 1000);
    const signIn: SignInClaims = {};
    if (subject.amr !== undefined) signIn.amr = subject.amr;
    if (subject.acr !== undefined) signIn.acr = subject.acr;
    if (subject.sid !== undefined) signIn.sid = subject.sid;
    return new SignJWT({ tenant_id: subject.tenantId, roles: subject.roles, scopes: subject.scopes, ...signIn })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject.username)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.lifetimeSeconds)
      .sign(this.key);
  }

  /** Verifies form, signature, algorithm, issuer, expiry and claim types; throws AuthenticationError otherwise. */
  async verify(token: string): Promise<AccessClaims> {
    if (!isCompactJws(token)) throw new AuthenticationError();
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      return parseClaims(payload);
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof joseErrors.JOSEError || err instanceof TypeError)
        throw new AuthenticationError();
      throw err;
    }
  }

  cached(token: string): AuthContext | undefined {
    return this.verified.get(token);
  }

  authenticate(token: string): Promise<AuthContext> {
    return this.verified.authenticate(token, () => this.verify(token).then(verifiedOf));
  }
}

/** Longer than any token we issue by far; the header limit bounds it anyway. */
const MAX_TOKEN_LENGTH = 8192;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Exactly `header.payload.signature`, each segment in the base64url alphabet without padding and
 * in its one canonical spelling (decoding and re-encoding gives it back: no impossible length,
 * no stray low bits).
 */
export function isCompactJws(token: string): boolean {
  if (token.length > MAX_TOKEN_LENGTH) return false;
  const segments = token.split('.');
  return (
    segments.length === 3 &&
    segments.every((s) => SEGMENT.test(s) && Buffer.from(s, 'base64url').toString('base64url') === s)
  );
}

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The claims with the types spec 01 gives them, or AuthenticationError. */
export function parseClaims(payload: Record<string, unknown>, issuer: string = ISSUER): AccessClaims {
  const { sub, tenant_id, roles, scopes, exp, iat, iss, amr, acr, sid } = payload;
  if (
    !isNonEmptyString(sub) ||
    !isNonEmptyString(tenant_id) ||
    !isStringArray(roles) ||
    !isStringArray(scopes) ||
    !isTime(exp) ||
    !isTime(iat) ||
    iss !== issuer ||
    (amr !== undefined && !isStringArray(amr)) ||
    (acr !== undefined && !isNonEmptyString(acr)) ||
    (sid !== undefined && !isNonEmptyString(sid))
  ) {
    throw new AuthenticationError();
  }
  const claims: AccessClaims = { sub, tenant_id, roles, scopes, exp, iat, iss };
  if (amr !== undefined) claims.amr = amr;
  if (acr !== undefined) claims.acr = acr;
  if (sid !== undefined) claims.sid = sid;
  return claims;
}

/** What a token cache keeps of verified claims: the caller's context until the token's expiry. */
export function verifiedOf(claims: AccessClaims): Verified {
  return { auth: contextFromClaims(claims), expiresAtMs: claims.exp * 1000 };
}

export function contextFromClaims(
  claims: Pick<AccessClaims, 'sub' | 'tenant_id' | 'roles' | 'scopes'> & SignInClaims,
): AuthContext {
  const context: AuthContext = {
    username: claims.sub,
    tenantId: claims.tenant_id,
    roles: claims.roles,
    scopes: claims.scopes,
    isService: claims.roles.some((r) => r.startsWith(SERVICE_ROLE_PREFIX)),
  };
  if (claims.amr !== undefined) context.amr = claims.amr;
  if (claims.acr !== undefined) context.acr = claims.acr;
  if (claims.sid !== undefined) context.sid = claims.sid;
  return context;
}

const PLAIN_BEARER = /^Bearer \S+$/;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token from `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // The form every client sends, without a match array (read on every authenticated request).
  if (PLAIN_BEARER.test(header)) return header.slice(7);
  return BEARER.exec(header)?.[1];
}
