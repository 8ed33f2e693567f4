// oidc-provider (a certified implementation: the protocol is not written here) configured for the
// platform: database adapter, the stored asymmetric keys, authorization code + PKCE (S256 only),
// rotated refresh tokens, introspection, revocation, and JWT access tokens for the platform's
// APIs (audience PLATFORM_AUDIENCE) carrying the platform's claims, so every service accepts them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { interactionPolicy, errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { PLATFORM_AUDIENCE } from '../../../platform/auth/asymmetric-tokens';
import { acrOf } from '../../../platform/auth/mfa';
import type { UserRecord } from '../identity.types';
import { roleNamesOf, scopesOf } from '../user.view';
import { tenantOfAccount } from './oidc.account';
import type { OidcConfig } from './oidc.config';
import type { ProviderKeys } from './signing-keys.service';

/** The scope a client asks for to call the platform's APIs (the resource's only scope). */
export const API_SCOPE = 'api';
export const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'email', API_SCOPE];

export interface ProviderDeps {
  adapter: NonNullable<Configuration['adapter']>;
  /** The user behind an account id, or null (unknown, inactive, or another tenant's). */
  findUser(accountId: string): Promise<UserRecord | null>;
  onServerError(err: unknown): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A session's account must belong to the requesting client's tenant; otherwise sign in again. */
function tenantCheck(): InstanceType<typeof interactionPolicy.Check> {
  return new interactionPolicy.Check('tenant_mismatch', 'the session belongs to another tenant', (ctx) => {
    const account = ctx.oidc.session?.accountId;
    if (!account) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
    const clientTenant = ctx.oidc.client?.['tenant_id'];
    return tenantOfAccount(account) === clientTenant
      ? interactionPolicy.Check.NO_NEED_TO_PROMPT
      : interactionPolicy.Check.REQUEST_PROMPT;
  });
}

function policy() {
  const prompts = interactionPolicy.base();
  prompts.get('login')!.checks.add(tenantCheck());
  return prompts;
}

/** How the sign-in was authenticated: kept on the code and refresh token by the provider. */
function signInOf(ctx: KoaContextWithOIDC): { amr?: string[]; acr?: string } {
  const source = ctx.oidc.entities.AuthorizationCode ?? ctx.oidc.entities.RefreshToken;
  return { amr: source?.amr, acr: source?.acr };
}

export function buildProvider(config: OidcConfig, keys: ProviderKeys, deps: ProviderDeps): Provider {
  const configuration: Configuration = {
    adapter: deps.adapter,
    jwks: { keys: keys.privateJwks as NonNullable<Configuration['jwks']>['keys'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: keys.alg as 'EdDSA',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    extraClientMetadata: { properties: ['tenant_id', 'first_party'] },
    scopes: OIDC_SCOPES,
    claims: { openid: ['sub'], profile: ['preferred_username', 'tenant_id'], email: ['email'] },
    cookies: { keys: config.cookieKeys },
    pkce: { required: () => true },
    // Browsers may call the token, revocation and userinfo endpoints from a public client's own
    // origins (those of its redirect URIs: the console's is its callback's) and from nowhere else.
    clientBasedCORS(ctx, origin, client) {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return (client.redirectUris ?? []).some((uri) => URL.canParse(uri) && new URL(uri).origin === origin);
    },
    rotateRefreshToken: true,
    ttl: {
      AccessToken: config.accessTokenSeconds,
      IdToken: config.accessTokenSeconds,
      AuthorizationCode: 60,
      RefreshToken: config.refreshTokenSeconds,
      Grant: config.refreshTokenSeconds,
      Session: 86_400,
      Interaction: 600,
    },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PLATFORM_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== PLATFORM_AUDIENCE) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: PLATFORM_AUDIENCE,
            accessTokenTTL: config.accessTokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: keys.alg as 'EdDSA' } },
          };
        },
      },
    },
    interactions: {
      url: (_ctx, interaction) =>
        `${new URL(config.issuer).pathname.replace(/\/$/, '')}/interaction/${interaction.uid}`,
      policy: policy(),
    },
    async findAccount(ctx, sub) {
      const user = await deps.findUser(sub);
      const clientTenant = ctx.oidc.client?.['tenant_id'];
      if (!user || (clientTenant !== undefined && user.tenantId !== clientTenant)) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            preferred_username: user.username,
            tenant_id: user.tenantId,
            ...(user.email ? { email: user.email } : {}),
          };
        },
      };
    },
    // The platform's claims (spec 01 plus amr/acr), read from the database when the token is issued.
    async extraTokenClaims(ctx, token) {
      if (token.kind !== 'AccessToken' || !('accountId' in token) || !token.accountId) return undefined;
      const user = await deps.findUser(token.accountId);
      if (!user) throw new errors.InvalidGrant('the account is no longer active');
      const { amr, acr } = signInOf(ctx);
      return {
        username: user.username,
        tenant_id: user.tenantId,
        roles: roleNamesOf(user),
        scopes: scopesOf(user.roles),
        ...(amr ? { amr, acr: acr ?? acrOf(amr) } : {}),
      };
    },
    formats: {
      customizers: {
        // `sub` of a platform token is the username (spec 01); the provider's own sub is the account id.
        jwt(_ctx, _token, jwt) {
          const { username, ...rest } = jwt.payload as Record<string, unknown>;
          if (typeof username === 'string') jwt.payload = { ...rest, sub: username } as typeof jwt.payload;
        },
      },
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Sign-in error</title><h1>Sign-in error</h1><p>${escapeHtml(
        String(out.error),
      )}: ${escapeHtml(String(out.error_description ?? ''))}</p>`;
    },
  };
  const provider = new Provider(config.issuer, configuration);
  provider.on('server_error', (_ctx, err) => deps.onServerError(err));
  return provider;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The provider for the current key set. Keys are reread every `keyReloadSeconds` (another
 * process may have rotated) and at once after a rotation here; a changed set rebuilds the
 * provider (its keystore is fixed at construction). State lives in the database, so nothing is lost.
 */
export class ProviderHost {
  private current: { provider: Provider; handler: Handler; keys: ProviderKeys } | undefined;
  private checkedAt = 0;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly config: OidcConfig,
    private readonly loadKeys: () => Promise<ProviderKeys>,
    private readonly deps: ProviderDeps,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<{ provider: Provider; handler: Handler; keys: ProviderKeys }> {
    if (!this.current || this.now() - this.checkedAt >= this.config.keyReloadSeconds * 1000) {
      this.loading ??= this.reload().finally(() => (this.loading = undefined));
      await this.loading;
    }
    return this.current!;
  }

  /** Forget the loaded keys (after a rotation in this process). */
  invalidate(): void {
    this.checkedAt = 0;
  }

  private async reload(): Promise<void> {
    const keys = await this.loadKeys();
    this.checkedAt = this.now();
    if (this.current?.keys.fingerprint === keys.fingerprint) return;
    const provider = buildProvider(this.config, keys, this.deps);
    this.current = { provider, handler: provider.callback(), keys };
  }
}
