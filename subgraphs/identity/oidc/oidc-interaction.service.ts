// The provider's interactions (login and consent), framework-free apart from the raw request and
// response the provider reads its interaction cookie from. Sign-in reuses the platform's rules
// unchanged: AuthService.login (password, throttle, audit) and, when the user's role or own
// enrolment asks for it, the second-factor challenge (MfaSignInService). The platform session those
// open is ended at once: the provider's grant is the session from here on. Consent is given
// without a page for first-party clients and asked for on third-party ones.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../../../platform/auth/caller';
import type { AccessClaims } from '../../../platform/auth/jwt';
import { AuthenticationError, RateLimitedError } from '../../../platform/errors/domain-errors';
import type { AuthService } from '../auth.service';
import type { UserStore } from '../identity.types';
import { MfaChallengeError } from '../mfa.challenge';
import type { MfaSignInService } from '../mfa-sign-in.service';
import type { TokenPair } from '../identity.types';
import { accountIdOf } from './oidc.account';
import type { ProviderHost } from './oidc.provider';
import type { OidcClientRecord, OidcClientStore } from './oidc.types';

export interface InteractionIo {
  req: IncomingMessage;
  res: ServerResponse;
}

/**
 * Every page names its client and where the sign-in may end: the origins of the client's
 * redirect URIs. The page's CSP must admit them in form-action, since browsers check that
 * directive on every redirect a form submission leads to (the last one goes to the client).
 */
interface PageBase {
  uid: string;
  clientName: string;
  formTargets: string[];
}

export type InteractionOutcome =
  | ({ view: 'login'; error?: string; status?: number } & PageBase)
  | ({ view: 'mfa'; mfaToken: string; factors: string[]; error?: string; status?: number } & PageBase)
  | ({ view: 'enrol_required' } & PageBase)
  | ({ view: 'consent'; scopes: string[] } & PageBase)
  | { redirect: string };

function pageBase(uid: string, client: OidcClientRecord): PageBase {
  const origins = client.redirectUris.flatMap((uri) => {
    try {
      return [new URL(uri).origin];
    } catch {
      return [];
    }
  });
  return { uid, clientName: client.name, formTargets: [...new Set(origins)] };
}

const BAD_LOGIN = 'Invalid username or password';
const BAD_CODE = 'That code was not accepted';

export class OidcInteractions {
  constructor(
    private readonly host: ProviderHost,
    private readonly clients: Pick<OidcClientStore, 'findById'>,
    private readonly users: Pick<UserStore, 'findForLogin'>,
    private readonly auth: AuthService,
    private readonly mfa: MfaSignInService,
  ) {}

  async show(io: InteractionIo): Promise<InteractionOutcome> {
    const { provider } = await this.host.get();
    const details = await provider.interactionDetails(io.req, io.res);
    const client = await this.clientOf(details.params.client_id);
    const base = pageBase(details.uid, client);
    if (details.prompt.name === 'login') return { view: 'login', ...base };
    if (client.firstParty) return this.grant(io, true);
    const d = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const scopes = [...(d.missingOIDCScope ?? []), ...Object.values(d.missingResourceScopes ?? {}).flat()];
    return { view: 'consent', ...base, scopes: [...new Set(scopes)] };
  }

  async login(
    caller: Caller,
    io: InteractionIo,
    form: { username: string; password: string },
  ): Promise<InteractionOutcome> {
    const { provider } = await this.host.get();
    const details = await provider.interactionDetails(io.req, io.res);
    const client = await this.clientOf(details.params.client_id);
    const base = pageBase(details.uid, client);
    try {
      const pair = await this.auth.login(caller, { ...form, tenantId: client.tenantId });
      return await this.finishLogin(caller, io, pair);
    } catch (err) {
      if (err instanceof MfaChallengeError) {
        const c = err.challenge;
        if (c.purpose !== 'verify') return { view: 'enrol_required', ...base };
        return { view: 'mfa', ...base, mfaToken: c.mfaToken, factors: c.factors };
      }
      if (err instanceof RateLimitedError) return { view: 'login', ...base, error: err.message, status: 429 };
      if (err instanceof AuthenticationError) return { view: 'login', ...base, error: BAD_LOGIN, status: 401 };
      throw err;
    }
  }

  async secondFactor(
    caller: Caller,
    io: InteractionIo,
    form: { mfaToken: string; code: string; method?: string },
  ): Promise<InteractionOutcome> {
    const { provider } = await this.host.get();
    const details = await provider.interactionDetails(io.req, io.res);
    const client = await this.clientOf(details.params.client_id);
    const base = pageBase(details.uid, client);
    try {
      const pair = await this.mfa.verify(caller, form);
      return await this.finishLogin(caller, io, pair);
    } catch (err) {
      if (err instanceof RateLimitedError) return { view: 'login', ...base, error: err.message, status: 429 };
      // A wrong code keeps the challenge (until its attempts run out: then the password again).
      if (err instanceof AuthenticationError)
        return {
          view: 'mfa',
          ...base,
          mfaToken: form.mfaToken,
          factors: ['totp', 'recovery_code'],
          error: BAD_CODE,
          status: 401,
        };
      throw err;
    }
  }

  async consent(io: InteractionIo, allow: boolean): Promise<InteractionOutcome> {
    return this.grant(io, allow);
  }

  private async finishLogin(caller: Caller, io: InteractionIo, pair: TokenPair): Promise<InteractionOutcome> {
    const { provider } = await this.host.get();
    const claims: AccessClaims = await this.auth.sessions.tokens.verify(pair.accessToken);
    await this.auth.revoke(caller, pair.refreshToken);
    const user = await this.users.findForLogin(claims.tenant_id, claims.sub);
    if (!user) throw new AuthenticationError();
    const redirect = await provider.interactionResult(
      io.req,
      io.res,
      { login: { accountId: accountIdOf(user.id, user.tenantId), amr: claims.amr ?? ['pwd'], acr: claims.acr } },
      { mergeWithLastSubmission: false },
    );
    return { redirect };
  }

  private async grant(io: InteractionIo, allow: boolean): Promise<InteractionOutcome> {
    const { provider } = await this.host.get();
    const details = await provider.interactionDetails(io.req, io.res);
    if (!allow) {
      const redirect = await provider.interactionResult(
        io.req,
        io.res,
        { error: 'access_denied', error_description: 'The user refused the request' },
        { mergeWithLastSubmission: false },
      );
      return { redirect };
    }
    const accountId = details.session?.accountId;
    if (details.prompt.name !== 'consent' || !accountId) throw new AuthenticationError('Sign in first');
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId, clientId: String(details.params.client_id) }))
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    const redirect = await provider.interactionResult(
      io.req,
      io.res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
    return { redirect };
  }

  private async clientOf(clientId: unknown) {
    const client = typeof clientId === 'string' ? await this.clients.findById(clientId) : null;
    if (!client) throw new AuthenticationError('Unknown client');
    return client;
  }
}
