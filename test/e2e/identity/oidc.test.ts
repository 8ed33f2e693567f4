// The OpenID Connect provider end to end: openid-client (a certified relying party) runs the
// authorization code + PKCE flow against identity, a "browser" (fetch + cookies) signs in on the
// provider's pages, and the access token is used through the gateway to the ledger, both of which
// verify it from the JWKS. Then refresh rotation, introspection, revocation, the hostile cases, and
// the console's derived client per tenant (redirect, tenant, CORS).
import { generateKeyPairSync } from 'node:crypto';
import * as oidc from 'openid-client';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { gatewayService } from '../../../services/gateway';
import { identityService } from '../../../services/identity';
import { ledgerService } from '../../../services/ledger';
import { registryOf } from '../../../launcher/registry';
import { startServices, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { call, login, loginOperator, TEST_ENV } from './identity.helpers';
import { Browser, isPage, type Page } from './oidc.browser';
import { TotpVerifier } from '../../../subgraphs/identity/totp';

const REDIRECT = 'http://localhost:53682/callback';
const SCOPE = 'openid offline_access api';

let backends: Harness;
let front: Harness;
let identity: string;
let gateway: string;
let issuer: string;
let rootToken: string;
let operatorToken: string;

beforeAll(async () => {
  const services = [identityService, ledgerService, gatewayService];
  const registry = registryOf(services);
  const ports = { identity: await freePort(), ledger: await freePort() };
  identity = `http://127.0.0.1:${ports.identity}`;
  issuer = `${identity}/oidc`;
  const env = {
    ...TEST_ENV,
    IDENTITY_URL: identity,
    LEDGER_URL: `http://127.0.0.1:${ports.ledger}`,
    IDENTITY_OIDC_ISSUER: issuer,
    IDENTITY_OIDC_KEY_PUBLISH_SECONDS: '0',
    // Verifiers refetch the key set whenever they verify a token they have not cached.
    IDENTITY_JWKS_CACHE_SECONDS: '0',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    IP_RATE_LIMIT_PER_SECOND: '100000',
    IP_RATE_LIMIT_BURST: '100000',
  };
  backends = await startServices([identityService, ledgerService], env, { registry, ports });
  front = await startServices([gatewayService], env, { db: backends.db, registry, bus: backends.bus });
  gateway = front.services.gateway!.url;
  rootToken = (await login(identity, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
  operatorToken = (await loginOperator(identity)).access_token;
  // Three services and two databases' worth of migrations: slow on a loaded machine, not a speed test.
}, 240_000);

afterAll(async () => {
  await front?.close();
  await backends?.close();
});

async function register(
  token: string,
  body: { name: string; redirect_uris: string[]; confidential?: boolean; first_party?: boolean; tenant_id?: string },
) {
  return call(`${identity}/v1/oidc/clients`, { method: 'POST', token, json: body });
}

async function relyingParty(client: { client_id: string; client_secret?: string }): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(issuer),
    client.client_id,
    undefined,
    client.client_secret ? oidc.ClientSecretBasic(client.client_secret) : oidc.None(),
    { execute: [oidc.allowInsecureRequests] },
  );
}

/** Runs the browser part of the flow: sign in (and consent when asked); returns the callback URL. */
async function authorize(
  authUrl: string,
  user: { username: string; password: string } = {
    username: TEST_ENV.DEV_ADMIN_USERNAME,
    password: TEST_ENV.DEV_ADMIN_PASSWORD,
  },
  browser = new Browser(REDIRECT),
): Promise<string> {
  let step = await browser.go(authUrl);
  for (let i = 0; i < 5 && isPage(step); i++) {
    const page: Page = step;
    if (/\/login"/.test(page.html)) step = await browser.submit(page, /\/login/, user);
    else if (/\/consent"/.test(page.html)) step = await browser.submit(page, /\/consent/, { decision: 'allow' });
    else throw new Error(`unexpected page ${page.status}: ${page.html.slice(0, 400)}`);
  }
  if (isPage(step)) throw new Error('no redirect to the client');
  return step.callback;
}

async function codeFlow(config: oidc.Configuration, browser?: Browser) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
  });
  const callback = await authorize(url.href, undefined, browser);
  return { callback, verifier, state };
}

describe('client registration', () => {
  it('an admin registers a confidential client; the secret is shown once and listing shows it without', async () => {
    const res = await register(rootToken, { name: 'Reports app', redirect_uris: [REDIRECT], confidential: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ tenant_id: 'default', confidential: true, redirect_uris: [REDIRECT] });
    expect(typeof res.body.client_secret).toBe('string');
    const list = await call(`${identity}/v1/oidc/clients`, { token: rootToken });
    const listed = list.body.clients.find((c: { client_id: string }) => c.client_id === res.body.client_id);
    expect(listed).toBeDefined();
    expect(listed.client_secret).toBeUndefined();
  });

  it.each([
    ['plain http', 'http://app.example/cb'],
    ['a fragment', 'https://app.example/cb#x'],
    ['user information', 'https://app.example@evil.example/cb'],
    ['not a URL', 'app/cb'],
    ['javascript', 'javascript:alert(1)'],
  ])('refuses a redirect_uri with %s (422)', async (_name, uri) => {
    const res = await register(rootToken, { name: 'Bad', redirect_uris: [uri] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'redirect_uris', 0]);
  });

  it("another tenant's admin cannot register or read this tenant's clients", async () => {
    await call(`${identity}/v1/tenants`, { method: 'POST', token: operatorToken, json: { id: 'acme', name: 'Acme' } });
    const created = await call(`${identity}/v1/users`, {
      method: 'POST',
      token: operatorToken,
      json: { username: 'acme-admin', password: 'acme-password-1', tenant_id: 'acme', roles: ['admin', 'user'] },
    });
    expect(created.status).toBe(201);
    const acme = (await login(identity, 'acme-admin', 'acme-password-1', 'acme')).access_token;
    const mine = await register(rootToken, { name: 'Default only', redirect_uris: [REDIRECT] });
    const foreign = await register(acme, { name: 'Sneaky', redirect_uris: [REDIRECT], tenant_id: 'default' });
    expect([403, 404]).toContain(foreign.status);
    const list = await call(`${identity}/v1/oidc/clients?tenant_id=default`, { token: acme });
    expect([403, 404]).toContain(list.status);
    const own = await call(`${identity}/v1/oidc/clients`, { token: acme });
    expect(own.status).toBe(200);
    expect(own.body.clients.map((c: { client_id: string }) => c.client_id)).not.toContain(mine.body.client_id);
    // A user who is not an admin registers nothing.
    const alice = (await login(identity, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).access_token;
    expect((await register(alice, { name: 'No', redirect_uris: [REDIRECT] })).status).toBe(403);
  });
});

describe('authorization code + PKCE with openid-client', () => {
  let client: { client_id: string; client_secret: string };
  let config: oidc.Configuration;
  let tokens: oidc.TokenEndpointResponse;

  beforeAll(async () => {
    client = (await register(rootToken, { name: 'Third party', redirect_uris: [REDIRECT], confidential: true })).body;
    config = await relyingParty(client);
  });

  it('discovery publishes the asymmetric keys and S256 only', async () => {
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(issuer);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.introspection_endpoint).toBeDefined();
    expect(meta.revocation_endpoint).toBeDefined();
    const jwks = (await (await fetch(meta.jwks_uri!)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const k of jwks.keys) {
      expect(k).toMatchObject({ use: 'sig' });
      expect(['EdDSA', 'RS256']).toContain(k.alg);
      expect(k.d).toBeUndefined();
    }
  });

  it('signs the user in (consent shown to a third-party client) and the gateway accepts the token through the JWKS', async () => {
    const { callback, verifier, state } = await codeFlow(config);
    tokens = await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.refresh_token).toBeDefined();
    expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({
      sub: TEST_ENV.DEV_ADMIN_USERNAME,
      tenant_id: 'default',
      amr: ['pwd'],
      acr: 'aal1',
      iss: issuer,
    });
    expect(claims.roles).toContain('admin');

    const viaGateway = await call(`${gateway}/api/v1/ledger/events`, { token: tokens.access_token });
    expect(viaGateway.status).toBe(200);
    const verify = await call(`${identity}/v1/auth/verify`, { token: tokens.access_token });
    expect(verify.body).toMatchObject({ valid: true, username: TEST_ENV.DEV_ADMIN_USERNAME, tenant_id: 'default' });
  });

  it('rotates refresh tokens: the old one is refused after use, and its reuse ends the grant', async () => {
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await call(`${gateway}/api/v1/ledger/events`, { token: refreshed.access_token })).status).toBe(200);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Reuse of a rotated token revoked the whole grant: the newest refresh token is dead too.
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('introspects and revokes', async () => {
    const { callback, verifier, state } = await codeFlow(config);
    const fresh = await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    // JWT access tokens are self-contained (verified from the JWKS): the provider refuses to
    // introspect them, so introspection is for the refresh token (docs/identity.md).
    await expect(oidc.tokenIntrospection(config, fresh.access_token)).rejects.toMatchObject({
      error: 'unsupported_token_type',
    });
    const active = await oidc.tokenIntrospection(config, fresh.refresh_token!);
    expect(active).toMatchObject({ active: true, client_id: client.client_id });
    await oidc.tokenRevocation(config, fresh.refresh_token!);
    expect((await oidc.tokenIntrospection(config, fresh.refresh_token!)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, fresh.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a code used twice is refused and the tokens issued for it are revoked', async () => {
    const { callback, verifier, state } = await codeFlow(config);
    const first = await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect((await oidc.tokenIntrospection(config, first.refresh_token!)).active).toBe(true);
    await expect(
      oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    // The grant is revoked: its refresh token is dead (its JWT access token runs to its exp).
    expect((await oidc.tokenIntrospection(config, first.refresh_token!)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('a code issued to client A is refused at client B (mixed-up clients)', async () => {
    const other = (await register(rootToken, { name: 'Client B', redirect_uris: [REDIRECT], confidential: true })).body;
    const configB = await relyingParty(other);
    const { callback, verifier, state } = await codeFlow(config);
    await expect(
      oidc.authorizationCodeGrant(configB, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a wrong PKCE verifier is refused', async () => {
    const { callback, state } = await codeFlow(config);
    await expect(
      oidc.authorizationCodeGrant(config, new URL(callback), {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe("second factor on the provider's sign-in page", () => {
  it('a user with TOTP must answer the code; the token says amr pwd+otp, acr aal2', async () => {
    const alice = (await login(identity, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).access_token;
    const started = await call(`${identity}/v1/auth/mfa/totp/enrol`, { method: 'POST', token: alice, json: {} });
    expect(started.status).toBe(200);
    const totp = new TotpVerifier(started.body.secret);
    const confirmed = await call(`${identity}/v1/auth/mfa/totp/confirm`, {
      method: 'POST',
      token: alice,
      json: { factor_id: started.body.factor_id, code: totp.generate(Date.now()) },
    });
    expect(confirmed.status).toBe(200);

    const client = (await register(rootToken, { name: 'MFA app', redirect_uris: [REDIRECT], first_party: true })).body;
    const config = await relyingParty(client);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      // offline_access (a refresh token) needs prompt=consent (OIDC Core §11); a first-party client still sees no page.
      prompt: 'consent',
    });
    const browser = new Browser(REDIRECT);
    let step = await browser.go(url.href);
    if (!isPage(step)) throw new Error('expected the login page');
    step = await browser.submit(step, /\/login/, {
      username: TEST_ENV.DEV_USER_USERNAME,
      password: TEST_ENV.DEV_USER_PASSWORD,
    });
    // The password alone gets the second-factor form, not a code for the client.
    if (!isPage(step)) throw new Error('a password alone reached the client');
    expect(step.html).toMatch(/Second factor/);
    const wrong = await browser.submit(step, /\/mfa/, {
      mfa_token: /name="mfa_token" value="([^"]+)"/.exec(step.html)![1]!,
      code: '000000',
      method: 'totp',
    });
    expect(isPage(wrong) && wrong.status).toBe(401);
    // The next step's code (the window accepts one ahead; the enrolment used the current one).
    const done = await browser.submit(wrong as Page, /\/mfa/, {
      mfa_token: /name="mfa_token" value="([^"]+)"/.exec((wrong as Page).html)![1]!,
      code: totp.generate(Date.now() + 30_000),
      method: 'totp',
    });
    if (isPage(done)) throw new Error(`no redirect after the code: ${done.status} ${done.html.slice(0, 300)}`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(done.callback), { pkceCodeVerifier: verifier });
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ sub: TEST_ENV.DEV_USER_USERNAME, amr: ['pwd', 'otp'], acr: 'aal2' });
    // The refreshed token keeps how the user signed in.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    const again = JSON.parse(Buffer.from(refreshed.access_token.split('.')[1]!, 'base64url').toString());
    expect(again).toMatchObject({ amr: ['pwd', 'otp'], acr: 'aal2' });
  });
});

describe('hostile authorization requests', () => {
  let publicClient: { client_id: string };
  beforeAll(async () => {
    publicClient = (await register(rootToken, { name: 'SPA', redirect_uris: [REDIRECT], first_party: true })).body;
  });

  function authUrl(params: Record<string, string>): string {
    const q = new URLSearchParams({
      client_id: publicClient.client_id,
      response_type: 'code',
      scope: SCOPE,
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'st',
      ...params,
    });
    return `${issuer}/auth?${q}`;
  }

  it.each([
    ['not registered', 'https://evil.example/callback'],
    ['a longer path', `${REDIRECT}/evil`],
    ['a prefix of it', 'http://localhost:53682/call'],
    ['another port', 'http://localhost:53683/callback'],
    ['an added query', `${REDIRECT}?x=1`],
    ['userinfo trick', 'http://localhost:53682@evil.example/callback'],
  ])('a redirect_uri %s gets an error page, never a redirect', async (_name, uri) => {
    const res = await fetch(authUrl({ redirect_uri: uri }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(/redirect_uri/);
  });

  it.each([
    ['without a code challenge', { code_challenge: '', code_challenge_method: '' }],
    ['with the plain method', { code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) }],
  ])('refuses PKCE downgrade: %s', async (_name, params) => {
    const url = new URL(authUrl(params));
    for (const [k, v] of Object.entries(params)) if (v === '') url.searchParams.delete(k);
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    expect(location).not.toBeNull();
    const back = new URL(location!);
    expect(back.href.startsWith(REDIRECT)).toBe(true);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a first-party client gets consent without a page', async () => {
    const config = await relyingParty(publicClient);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new Browser(REDIRECT);
    let step = await browser.go(url.href);
    if (!isPage(step)) throw new Error('expected the login page');
    expect(step.html).toMatch(/Sign in to SPA/);
    step = await browser.submit(step, /\/login/, {
      username: TEST_ENV.DEV_ADMIN_USERNAME,
      password: TEST_ENV.DEV_ADMIN_PASSWORD,
    });
    expect(isPage(step)).toBe(false);
    const tokens = await oidc.authorizationCodeGrant(config, new URL((step as { callback: string }).callback), {
      pkceCodeVerifier: verifier,
    });
    expect((await call(`${gateway}/api/v1/ledger/events`, { token: tokens.access_token })).status).toBe(200);
  });

  it('a wrong password shows the form again with a 401 and no redirect', async () => {
    const browser = new Browser(REDIRECT);
    const page = await browser.go(authUrl({}));
    if (!isPage(page)) throw new Error('expected the login page');
    const again = await browser.submit(page, /\/login/, {
      username: TEST_ENV.DEV_USER_USERNAME,
      password: 'wrong-password',
    });
    expect(isPage(again) && again.status).toBe(401);
  });
});

describe('forged and removed-key tokens', () => {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = () => Math.floor(Date.now() / 1000);
  const payload = () => ({
    sub: TEST_ENV.DEV_ADMIN_USERNAME,
    tenant_id: 'default',
    roles: ['admin', 'user'],
    scopes: ['admin', 'read', 'write'],
    iss: issuer,
    aud: 'urn:regulated-platform:api',
    iat: now(),
    exp: now() + 600,
  });

  async function refusedEverywhere(token: string) {
    expect((await call(`${gateway}/api/v1/ledger/events`, { token })).status).toBe(401);
    expect((await call(`${identity}/v1/auth/verify`, { token })).status).toBe(401);
    expect((await call(`${backends.services.ledger!.url}/events`, { token })).status).toBe(401);
  }

  it('alg none is refused', async () => {
    await refusedEverywhere(`${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(payload())}.`);
  });

  it('HS/RS confusion (an HS256 token keyed with the published public key) is refused', async () => {
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, string>[] };
    const key = jwks.keys[0]!;
    for (const secret of [JSON.stringify(key), key.x ?? key.n ?? '']) {
      const token = await new SignJWT(payload())
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
        .sign(new TextEncoder().encode(secret));
      await refusedEverywhere(token);
    }
  });

  it('a token signed by a key that is not in the JWKS is refused', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Record<string, string>[] };
    const token = await new SignJWT(payload())
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: jwks.keys[0]!.kid })
      .sign(privateKey);
    await refusedEverywhere(token);
  });

  it('after an emergency rotation, tokens of the removed key are refused; new ones verify', async () => {
    const client = (await register(rootToken, { name: 'Rotation', redirect_uris: [REDIRECT], confidential: true }))
      .body;
    const config = await relyingParty(client);
    const { callback, verifier, state } = await codeFlow(config);
    const old = await oidc.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    const oldKid = decodeProtectedHeader(old.access_token).kid;

    // Only a platform operator rotates.
    expect((await call(`${identity}/v1/oidc/keys/rotate`, { method: 'POST', token: rootToken, json: {} })).status).toBe(
      403,
    );
    const rotated = await call(`${identity}/v1/oidc/keys/rotate`, {
      method: 'POST',
      token: operatorToken,
      json: { immediate: true },
    });
    expect(rotated.status).toBe(200);
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.body.kid]);
    expect(jwks.keys.map((k) => k.kid)).not.toContain(oldKid);
    await refusedEverywhere(old.access_token);

    const next = await codeFlow(config);
    const fresh = await oidc.authorizationCodeGrant(config, new URL(next.callback), {
      pkceCodeVerifier: next.verifier,
      expectedState: next.state,
    });
    expect(decodeProtectedHeader(fresh.access_token).kid).toBe(rotated.body.kid);
    expect((await call(`${gateway}/api/v1/ledger/events`, { token: fresh.access_token })).status).toBe(200);
  });

  it('a planned rotation publishes the new key before it signs and keeps the old one published', async () => {
    const before = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    const rotated = await call(`${identity}/v1/oidc/keys/rotate`, { method: 'POST', token: operatorToken, json: {} });
    expect(rotated.status).toBe(200);
    const after = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: { kid: string }[] };
    expect(after.keys.map((k) => k.kid)).toEqual(
      expect.arrayContaining([...before.keys.map((k) => k.kid), rotated.body.kid]),
    );
  });
});

describe("the console's client per tenant (console.<tenant id>)", () => {
  // IDENTITY_CONSOLE_REDIRECT_URIS is unset: the router's default URL and its localhost twin.
  const CONSOLE_CALLBACK = 'http://127.0.0.1:8080/console/callback';

  function consoleAuthUrl(clientId: string, params: Record<string, string> = {}): string {
    const q = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: SCOPE,
      redirect_uri: CONSOLE_CALLBACK,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      prompt: 'consent',
      state: 'st',
      ...params,
    });
    return `${issuer}/auth?${q}`;
  }

  it('redirects only to the configured console callback', async () => {
    for (const uri of ['https://evil.example/console/callback', 'http://127.0.0.1:8081/console/callback']) {
      const res = await fetch(consoleAuthUrl('console.default', { redirect_uri: uri }), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  // Someone without a second factor (earlier cases enrolled alice's).
  const CAROL = { username: 'carol', password: 'carol-password-1' };
  beforeAll(async () => {
    const created = await call(`${identity}/v1/users`, { method: 'POST', token: rootToken, json: CAROL });
    expect(created.status).toBe(201);
  });

  it("signs a tenant's user in with PKCE; the page admits the console's origin in form-action; no consent page", async () => {
    const config = await relyingParty({ client_id: 'console.default' });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CONSOLE_CALLBACK,
      scope: SCOPE,
      prompt: 'consent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new Browser(CONSOLE_CALLBACK);
    const login = await browser.go(url.href);
    if (!isPage(login)) throw new Error('expected the login page');
    expect(login.html).toMatch(/Sign in to Reviewer console/);
    const page = await fetch(login.url, { headers: { cookie: browser.jar.header() } });
    expect(page.headers.get('content-security-policy')).toContain(
      "form-action 'self' http://127.0.0.1:8080 http://localhost:8080;",
    );
    const back = await browser.submit(login, /\/login/, CAROL);
    if (isPage(back)) throw new Error(`expected the redirect to the console: ${back.html.slice(0, 300)}`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(back.callback), { pkceCodeVerifier: verifier });
    expect(tokens.refresh_token).toBeDefined();
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: CAROL.username,
      tenant_id: 'default',
    });
    expect((await call(`${gateway}/api/v1/ledger/events`, { token: tokens.access_token })).status).toBe(200);
  });

  it("another tenant's console client does not sign this tenant's user in", async () => {
    const browser = new Browser(CONSOLE_CALLBACK);
    const login = await browser.go(consoleAuthUrl('console.acme'));
    if (!isPage(login)) throw new Error('expected the login page');
    const again = await browser.submit(login, /\/login/, {
      username: TEST_ENV.DEV_USER_USERNAME,
      password: TEST_ENV.DEV_USER_PASSWORD,
    });
    expect(isPage(again) && again.status).toBe(401);
  });

  it("answers CORS from the console's origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${issuer}/token`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    const token = (origin: string) =>
      fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'console.default' }),
      });
    expect((await preflight('http://localhost:8080')).status).toBeLessThan(300);
    // A made-up refresh token: refused either way, but only the console's origin may read why.
    const ours = await token('http://localhost:8080');
    expect(ours.headers.get('access-control-allow-origin')).toBe('http://localhost:8080');
    expect(await ours.json()).toMatchObject({ error: 'invalid_grant' });
    const theirs = await token('https://evil.example');
    expect(theirs.headers.get('access-control-allow-origin')).toBeNull();
    expect(await theirs.json()).toMatchObject({ error: 'invalid_request' });
  });
});
