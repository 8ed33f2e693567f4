// Typed client for identity's documented `GET /v1/auth/verify` (spec 01, authentication rule 6).
// Used by the gateway when TOKEN_VERIFICATION=identity; any service may use it the same way.
import type { AuthContext } from '../auth/auth-context';
import { contextFromClaims } from '../auth/jwt';
import { AuthenticationError, RateLimitedError, UnavailableError } from '../errors/domain-errors';
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

/** A right password that still owes a second factor: identity's challenge (docs/identity.md, "Multi-factor sign-in"). */
export interface MfaChallengeAnswer {
  /** `mfa_required` or `mfa_enrolment_required`. */
  error: string;
  mfaToken: string;
  factors: string[];
  expiresIn: number;
}

/** An AuthenticationError (a 401 to whoever does not look further) that carries identity's challenge. */
export class MfaChallengeRequired extends AuthenticationError {
  constructor(
    readonly challenge: MfaChallengeAnswer,
    message: string,
  ) {
    super(message);
  }
}

function challengeOf(body: unknown): MfaChallengeRequired | undefined {
  const b = body as { detail?: unknown; error?: unknown; mfa_token?: unknown; factors?: unknown; expires_in?: unknown };
  if (typeof b?.mfa_token !== 'string' || typeof b.error !== 'string') return undefined;
  return new MfaChallengeRequired(
    {
      error: b.error,
      mfaToken: b.mfa_token,
      factors: Array.isArray(b.factors) ? b.factors.filter((f): f is string => typeof f === 'string') : [],
      expiresIn: typeof b.expires_in === 'number' ? b.expires_in : 0,
    },
    typeof b.detail === 'string' ? b.detail : 'Multi-factor authentication required',
  );
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

  /** Answers a sign-in challenge with a TOTP (or recovery) code; AuthenticationError when refused. */
  verifyMfa(answer: { mfaToken: string; code: string; method?: string }): Promise<TokenPair> {
    return this.tokenCall(
      '/v1/auth/mfa/verify',
      { 'content-type': 'application/json' },
      JSON.stringify({
        mfa_token: answer.mfaToken,
        code: answer.code,
        ...(answer.method ? { method: answer.method } : {}),
      }),
    );
  }

  /** Answers a sign-in challenge with a WebAuthn assertion (navigator.credentials.get() as JSON). */
  verifyWebauthn(answer: { mfaToken: string; credential: unknown }): Promise<TokenPair> {
    return this.tokenCall(
      '/v1/auth/mfa/webauthn/authenticate/verify',
      { 'content-type': 'application/json' },
      JSON.stringify({ mfa_token: answer.mfaToken, credential: answer.credential }),
    );
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
    // A 401 that carries a second-factor challenge is passed on with it.
    if (res.status === 401) {
      const challenge = challengeOf(await res.json().catch(() => undefined));
      throw challenge ?? new AuthenticationError();
    }
    if (res.status === 429) {
      await res.body?.cancel();
      throw new RateLimitedError(
        'Too many failed logins; try again later',
        Number(res.headers.get('retry-after')) || 1,
      );
    }
    if (res.status === 403 || res.status === 422) {
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
