// HS256 access tokens with jose. Claims are exactly spec 01's table: sub, tenant_id, roles,
// scopes, exp, iat, iss (= platform-identity). Only HS256 is accepted, so `alg: none` and
// tokens signed with another algorithm or key are refused.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { AuthenticationError } from '../errors/domain-errors';
import type { AuthContext } from './auth-context';

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
}

export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(secret: string, private readonly lifetimeSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  get expiresIn(): number {
    return this.lifetimeSeconds;
  }

  async issue(subject: { username: string; tenantId: string; roles: string[]; scopes: string[] }, now = Date.now()): Promise<string> {
    const iat = Math.floor(now / 1000);
    return new SignJWT({ tenant_id: subject.tenantId, roles: subject.roles, scopes: subject.scopes })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(subject.username)
      .setIssuer(ISSUER)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.lifetimeSeconds)
      .sign(this.key);
  }

  /** Verifies signature, algorithm, issuer and expiry; throws AuthenticationError otherwise. */
  async verify(token: string): Promise<AccessClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], issuer: ISSUER, requiredClaims: ['sub', 'exp', 'iat'] });
      const claims = payload as unknown as AccessClaims;
      if (typeof claims.tenant_id !== 'string' || !Array.isArray(claims.roles) || !Array.isArray(claims.scopes)) {
        throw new AuthenticationError();
      }
      return claims;
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof joseErrors.JOSEError || err instanceof TypeError) throw new AuthenticationError();
      throw err;
    }
  }

  async authenticate(token: string): Promise<AuthContext> {
    const claims = await this.verify(token);
    return contextFromClaims(claims);
  }
}

export function contextFromClaims(claims: Pick<AccessClaims, 'sub' | 'tenant_id' | 'roles' | 'scopes'>): AuthContext {
  return {
    username: claims.sub,
    tenantId: claims.tenant_id,
    roles: claims.roles,
    scopes: claims.scopes,
    isService: claims.roles.some((r) => r.startsWith(SERVICE_ROLE_PREFIX)),
  };
}

/** The token from `Authorization: Bearer <token>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
