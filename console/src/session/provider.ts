// Sign-in through the platform's OpenID Connect provider: authorization code + PKCE (S256), the
// console being a public client (`console.<tenant id>`, no secret). oauth4webapi does the
// protocol (discovery, the request, the state check, the code exchange, refresh, revocation);
// nothing here builds or parses a protocol message by hand. The provider's own pages ask for the
// password and, when the person's role or enrolment demands it, the second factor.
//
// What survives the round trip to the provider is the PKCE verifier, the state and the tenant,
// in sessionStorage (this tab only, removed on return): no token is ever stored. The tokens live
// in session.ts's memory like the password path's access token; the refresh token is held in
// memory too (there is no cookie: the provider, not the router, issued it).
import * as oauth from 'oauth4webapi';

const PENDING_KEY = 'console-oidc-pending';
export const CALLBACK_PATH = '/console/callback';
const SCOPE = 'openid offline_access api';

export interface ProviderTokens {
  accessToken: string;
  refreshToken?: string;
  expiresIn: number;
}

interface Pending {
  verifier: string;
  state: string;
  clientId: string;
  issuer: string;
  returnTo: string;
}

export class ProviderError extends Error {}

let server: { issuer: string; as: oauth.AuthorizationServer } | undefined;
let client: oauth.Client | undefined;

/** http issuers only on a developer's machine; oauth4webapi refuses them unless told. */
const insecure = (issuer: string) => ({ [oauth.allowInsecureRequests]: new URL(issuer).protocol === 'http:' });

async function providerInfo(): Promise<{ issuer: string; clientIdPrefix: string }> {
  const res = await fetch('/console/session/provider', { credentials: 'same-origin' });
  if (!res.ok) throw new ProviderError('The identity provider is not configured for this console.');
  const body = (await res.json()) as { issuer: string; client_id_prefix: string };
  return { issuer: body.issuer, clientIdPrefix: body.client_id_prefix };
}

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  if (server?.issuer === issuer) return server.as;
  const url = new URL(issuer);
  const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, insecure(issuer)));
  server = { issuer, as };
  return as;
}

const redirectUri = () => `${location.origin}${CALLBACK_PATH}`;

/** Leaves for the provider's sign-in page; comes back to /console/callback. */
export async function startProviderSignIn(tenantId: string): Promise<void> {
  const info = await providerInfo();
  const as = await discover(info.issuer);
  if (!as.authorization_endpoint) throw new ProviderError('The identity provider has no authorization endpoint.');
  const verifier = oauth.generateRandomCodeVerifier();
  const pending: Pending = {
    verifier,
    state: oauth.generateRandomState(),
    clientId: `${info.clientIdPrefix}${tenantId}`,
    issuer: info.issuer,
    returnTo: location.pathname.startsWith(CALLBACK_PATH) ? '/console/' : location.pathname,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: pending.clientId,
    redirect_uri: redirectUri(),
    response_type: 'code',
    // offline_access (a refresh token) is only granted with consent in the prompt (OIDC Core
    // §11); the console is first-party, so the provider grants it without showing a page.
    scope: SCOPE,
    prompt: 'consent',
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

function takePending(): Pending {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) throw new ProviderError('This sign-in was not started here (or was already used). Sign in again.');
  return JSON.parse(raw) as Pending;
}

function tokensOf(result: oauth.TokenEndpointResponse): ProviderTokens {
  return {
    accessToken: result.access_token,
    ...(result.refresh_token ? { refreshToken: result.refresh_token } : {}),
    expiresIn: result.expires_in ?? 3600,
  };
}

let finishing: Promise<{ tokens: ProviderTokens; returnTo: string }> | undefined;

/**
 * On /console/callback: checks the state, exchanges the code (with the PKCE verifier). Once per
 * page load: a second call (React's StrictMode runs effects twice in development) shares the first.
 */
export function finishProviderSignIn(): Promise<{ tokens: ProviderTokens; returnTo: string }> {
  finishing ??= exchangeCode();
  return finishing;
}

async function exchangeCode(): Promise<{ tokens: ProviderTokens; returnTo: string }> {
  const pending = takePending();
  const as = await discover(pending.issuer);
  client = { client_id: pending.clientId };
  const params = oauth.validateAuthResponse(as, client, new URL(location.href), pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri(),
    pending.verifier,
    insecure(pending.issuer),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { tokens: tokensOf(result), returnTo: pending.returnTo };
}

/** A new token pair for the refresh token (the provider rotates it: the old one is used up). */
export async function refreshWithProvider(refreshToken: string): Promise<ProviderTokens> {
  if (!server || !client) throw new ProviderError('Not signed in through the identity provider.');
  const response = await oauth.refreshTokenGrantRequest(
    server.as,
    client,
    oauth.None(),
    refreshToken,
    insecure(server.issuer),
  );
  return tokensOf(await oauth.processRefreshTokenResponse(server.as, client, response));
}

/** Revokes the refresh token (and so the grant's tokens) at the provider. */
export async function revokeAtProvider(refreshToken: string): Promise<void> {
  if (!server || !client) return;
  const response = await oauth.revocationRequest(server.as, client, oauth.None(), refreshToken, {
    ...insecure(server.issuer),
    additionalParameters: { token_type_hint: 'refresh_token' },
  });
  await oauth.processRevocationResponse(response);
}

export function isOAuthProblem(err: unknown): boolean {
  return err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError;
}
