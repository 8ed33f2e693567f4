// Typed client for identity's documented `GET /v1/auth/verify` (spec 01, authentication rule 6).
// Used by the gateway when TOKEN_VERIFICATION=identity; any service may use it the same way.
import type { AuthContext } from '../auth/auth-context';
import { contextFromClaims } from '../auth/jwt';
import { AuthenticationError, UnavailableError } from '../errors/domain-errors';
import type { VerifyResponse } from '../contracts/clients/identity.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { VerifyResponse };

/** identity's token answer (`/v1/auth/token`, `/v1/auth/refresh`). */
export interface TokenPair {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
}

export class IdentityClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 2_000,
  ) {}

  /** The caller's context, or AuthenticationError (401 from identity) / UnavailableError. */
  async verify(token: string): Promise<AuthContext> {
    let res: Response;
    try {
      res = await fetch(new URL('/v1/auth/verify', this.baseUrl), {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new UnavailableError('Identity service unavailable', 1);
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new AuthenticationError();
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new UnavailableError('Identity service unavailable', 1);
    }
    const body = (await res.json()) as VerifyResponse;
    if (!body.valid) throw new AuthenticationError();
    return contextFromClaims({
      sub: body.username,
      tenant_id: body.tenant_id,
      roles: body.roles,
      scopes: body.scopes,
      ...(body.amr !== undefined ? { amr: body.amr } : {}),
      ...(body.acr !== undefined ? { acr: body.acr } : {}),
    });
  }

  /** The password grant (form-encoded, RFC 6749 §4.3); AuthenticationError for wrong credentials. */
  passwordGrant(credentials: { username: string; password: string; tenantId?: string }): Promise<TokenPair> {
    const form = new URLSearchParams({
      grant_type: 'password',
      username: credentials.username,
      password: credentials.password,
    });
    if (credentials.tenantId) form.set('tenant_id', credentials.tenantId);
    return this.tokenCall('/v1/auth/token', { 'content-type': 'application/x-www-form-urlencoded' }, form.toString());
  }

  /** Rotates a refresh token; AuthenticationError when it is unknown, used, revoked or expired. */
  refresh(refreshToken: string): Promise<TokenPair> {
    return this.tokenCall(
      '/v1/auth/refresh',
      { 'content-type': 'application/json' },
      JSON.stringify({ refresh_token: refreshToken }),
    );
  }

  /** Revokes the token's family (logout); unknown tokens are accepted by identity (RFC 7009). */
  async revoke(refreshToken: string): Promise<void> {
    const res = await this.post(
      '/v1/auth/logout',
      { 'content-type': 'application/json' },
      JSON.stringify({ refresh_token: refreshToken }),
    );
    await res.body?.cancel();
    if (!res.ok) throw new UnavailableError('Identity service unavailable', 1);
  }

  private async tokenCall(route: string, headers: Record<string, string>, body: string): Promise<TokenPair> {
    const res = await this.post(route, headers, body);
    // 401 wrong credentials or token; 422 a malformed body (an empty password): both refuse.
    if (res.status === 401 || res.status === 403 || res.status === 422) {
      await res.body?.cancel();
      throw new AuthenticationError();
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new UnavailableError('Identity service unavailable', 1);
    }
    return (await res.json()) as TokenPair;
  }

  private async post(route: string, headers: Record<string, string>, body: string): Promise<Response> {
    try {
      return await fetch(new URL(route, this.baseUrl), {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs * 5),
      });
    } catch {
      throw new UnavailableError('Identity service unavailable', 1);
    }
  }
}
