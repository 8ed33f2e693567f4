// The platform's own identity for a call one service makes to another on behalf of a caller who
// presented no token (the spec's trust-the-gateway mode: the caller is known only by the gateway's
// X-Tenant-ID). Forwarding nothing would make the callee see an anonymous request, which a callee
// that demands a token refuses (401) and which would say nothing of who asked. Instead the calling
// service signs a short-lived token for exactly that tenant with the platform's shared secret, as
// the outbox relay does for its own calls (launcher/outbox-task.ts).
//
// The token is tenant-scoped on purpose: its roles carry no `service:` prefix, so it is not a
// service account (platform/auth/tenant.rule.ts lets those act in any tenant) and no operator
// either. It holds scopes read and write in its one tenant, what the anonymous caller could
// already do on the calling service's own port, and nothing of another tenant's.
import { AccessTokens } from './jwt';

/** The role such tokens carry: names what they are in logs and ledger rows, grants nothing by itself. */
export const TENANT_DELEGATE_ROLE = 'tenant-delegate';

/** What clients need: a token acting for one tenant. */
export interface DelegatedIdentity {
  tokenFor(tenantId: string): Promise<string>;
}

const LIFETIME_SECONDS = 900;
/** Reused until a minute before expiry; a token is cheap to sign, so the cache only saves work. */
const RENEW_BEFORE_MS = 60_000;
const MAX_CACHED_TENANTS = 10_000;

export class ServiceIdentity implements DelegatedIdentity {
  private readonly tokens: AccessTokens;
  private readonly cache = new Map<string, { token: string; expiresAt: number }>();

  /** `service` is the calling service's name (e.g. `workflow`): the token's subject is `<service>-service`. */
  constructor(
    jwtSecret: string,
    readonly service: string,
  ) {
    this.tokens = new AccessTokens(jwtSecret, LIFETIME_SECONDS);
  }

  get username(): string {
    return `${this.service}-service`;
  }

  async tokenFor(tenantId: string): Promise<string> {
    const hit = this.cache.get(tenantId);
    if (hit && hit.expiresAt > Date.now() + RENEW_BEFORE_MS) return hit.token;
    const token = await this.tokens.issue({
      username: this.username,
      tenantId,
      roles: [TENANT_DELEGATE_ROLE],
      scopes: ['read', 'write'],
    });
    if (this.cache.size >= MAX_CACHED_TENANTS) this.cache.clear();
    this.cache.set(tenantId, { token, expiresAt: Date.now() + LIFETIME_SECONDS * 1000 });
    return token;
  }
}
