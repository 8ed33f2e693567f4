// Typed client for identity's documented `GET /v1/auth/verify` (spec 01, authentication rule 6).
// Used by the gateway when TOKEN_VERIFICATION=identity; any service may use it the same way.
import type { AuthContext } from '../auth/auth-context';
import { contextFromClaims } from '../auth/jwt';
import { AuthenticationError, UnavailableError } from '../errors/domain-errors';
import type { VerifyResponse } from '../contracts/clients/identity.api';
// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { VerifyResponse };

export class IdentityClient {
  constructor(private readonly baseUrl: string, private readonly timeoutMs = 2_000) {}

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
    return contextFromClaims({ sub: body.username, tenant_id: body.tenant_id, roles: body.roles, scopes: body.scopes });
  }
}
