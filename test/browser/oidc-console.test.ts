// The console signs in through the platform's OpenID Connect provider in Debian's Chromium:
// authorization code + PKCE (S256) as the public client `console.acme`, the provider's own pages
// asking for the password and, since a reviewer must use a second factor, the TOTP code. The
// access token the page receives (EdDSA, from the provider) is accepted by the gateway and the
// ledger through the JWKS: the person sees their tenant's ledger events and not another
// tenant's. The page then refreshes at the provider before expiry, and sign-out revokes there.
import type { Browser, Request } from 'playwright-core';
import { registryOf, SERVICES } from '../../launcher/registry';
import { TEST_ENV, loginOperator } from '../e2e/identity/identity.helpers';
import { tenantToken } from '../e2e/router/platform.support';
import { startServices, type Harness } from '../support/service-harness';
import { freePort } from '../support/waiting';
import { TotpVerifier } from '../../subgraphs/identity/totp';
import { buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

const RITA = { username: 'rita', password: 'rita-password-1', tenant: 'acme' };

let browser: Browser;
let built: ReturnType<typeof buildConsole>;
let backends: Harness;
let front: Harness;
let identity: string;
let origin: string;
let ritaTotp: TotpVerifier;

async function call(url: string, init: { method?: string; json?: unknown; token?: string } = {}): Promise<any> {
  const res = await fetch(url, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function appendLedgerEvent(tenantId: string, description: string): Promise<void> {
  const res = await call(`${front.services.gateway!.url}/graphql`, {
    token: await tenantToken(tenantId),
    json: {
      query: `mutation($input: AppendLedgerEventInput!) { appendLedgerEvent(input: $input) { seq } }`,
      variables: { input: { eventType: 'oidc.console', eventData: { n: 1 }, description } },
    },
  });
  expect(res.body.errors).toBeUndefined();
}

beforeAll(async () => {
  built = buildConsole();
  browser = await launchChromium();
  const registry = registryOf(SERVICES);
  const ports = { identity: await freePort(), ledger: await freePort(), gateway: await freePort() };
  identity = `http://127.0.0.1:${ports.identity}`;
  origin = `http://localhost:${ports.gateway}`;
  const env = {
    ...TEST_ENV,
    IDENTITY_URL: identity,
    LEDGER_URL: `http://127.0.0.1:${ports.ledger}`,
    IDENTITY_MFA_REQUIRED_ROLES: 'reviewer',
    IDENTITY_OIDC_KEY_PUBLISH_SECONDS: '0',
    // One-minute provider tokens: the page refreshes halfway, within the test.
    IDENTITY_OIDC_ACCESS_TOKEN_SECONDS: '60',
    IDENTITY_CONSOLE_REDIRECT_URIS: `${origin}/console/callback`,
    CONSOLE_DIR: built.dir,
    LOGIN_MAX_FAILURES: '1000',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    IP_RATE_LIMIT_PER_SECOND: '100000',
    IP_RATE_LIMIT_BURST: '100000',
  };
  const only = (...names: string[]) => SERVICES.filter((s) => names.includes(s.name));
  backends = await startServices(only('identity', 'ledger'), env, { registry, ports });
  front = await startServices(only('gateway'), env, { db: backends.db, registry, bus: backends.bus, ports });

  // rita: a reviewer in tenant acme, with an authenticator app enrolled through the API.
  const operator = (await loginOperator(identity)).access_token;
  expect((await call(`${identity}/v1/tenants`, { token: operator, json: { id: 'acme', name: 'Acme' } })).status).toBe(
    201,
  );
  const role = await call(`${identity}/v1/roles?role_name=reviewer`, {
    method: 'POST',
    token: operator,
    json: { scopes: ['read', 'write'] },
  });
  expect(role.status).toBe(200);
  const created = await call(`${identity}/v1/users`, {
    token: operator,
    json: { username: RITA.username, password: RITA.password, tenant_id: 'acme', roles: ['reviewer'] },
  });
  expect(created.status).toBe(201);
  const first = await call(`${identity}/v1/auth/login`, {
    json: { username: RITA.username, password: RITA.password, tenant_id: 'acme' },
  });
  expect(first.body.error).toBe('mfa_enrolment_required');
  const started = await call(`${identity}/v1/auth/mfa/totp/enrol`, { json: { mfa_token: first.body.mfa_token } });
  ritaTotp = new TotpVerifier(started.body.secret);
  const confirmed = await call(`${identity}/v1/auth/mfa/totp/confirm`, {
    json: { mfa_token: first.body.mfa_token, factor_id: started.body.factor_id, code: ritaTotp.generate(Date.now()) },
  });
  expect(confirmed.status).toBe(200);

  await appendLedgerEvent('acme', 'acme-only event');
  await appendLedgerEvent('default', 'default-tenant secret event');
});

afterAll(async () => {
  await browser?.close();
  await front?.close();
  await backends?.close();
  built?.remove();
});

it('a reviewer signs in through the provider (code + PKCE, TOTP), sees their tenant’s data, refreshes and signs out', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  const tokenCalls: { grant: string | null; status: number }[] = [];
  page.on('requestfinished', (request: Request) => {
    if (request.url() !== `${identity}/oidc/token` || request.method() !== 'POST') return;
    const grant = new URLSearchParams(request.postData() ?? '').get('grant_type');
    void request.response().then((r) => tokenCalls.push({ grant, status: r?.status() ?? 0 }));
  });

  await page.goto(`${origin}/console/ledger`);
  await page.getByLabel('Tenant').fill(RITA.tenant);
  await page.getByRole('button', { name: 'Continue with the identity provider' }).click();

  // The provider's pages, on identity's origin; the request carried an S256 challenge.
  await page.waitForURL((url) => url.href.startsWith(`${identity}/oidc/interaction/`));
  await page.getByLabel('Username').fill(RITA.username);
  await page.getByLabel('Password').fill(RITA.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Second factor' }).waitFor();
  // The enrolment used this step's code, so the next step's answers the challenge.
  await page.getByLabel('Code', { exact: true }).fill(ritaTotp.generate(Date.now() + 30_000));
  await page.getByRole('button', { name: 'Continue' }).click();

  // Back in the console, on the page the person started from, signed in as rita@acme.
  await page.getByTestId('who').waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/ledger');
  expect(await page.getByTestId('who').innerText()).toContain('rita');
  await page.getByLabel('Event type').fill('oidc.console');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.locator('table').filter({ hasText: 'acme-only event' }).waitFor();
  expect(await page.locator('table').innerText()).not.toContain('default-tenant secret event');
  expect(tokenCalls).toEqual([{ grant: 'authorization_code', status: 200 }]);
  // Nothing of the sign-in is left in storage: no token, no verifier.
  expect(await page.evaluate('JSON.stringify([sessionStorage, localStorage])')).toBe('[{},{}]');

  // The page refreshes the one-minute token at the provider before it expires, and keeps working.
  await page.waitForResponse((r) => r.url() === `${identity}/oidc/token` && r.request().method() === 'POST', {
    timeout: 120_000,
  });
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.locator('table').filter({ hasText: 'acme-only event' }).waitFor();
  expect(tokenCalls.map((c) => c.grant)).toEqual(['authorization_code', 'refresh_token']);
  expect(tokenCalls[1]!.status).toBe(200);

  // Sign out revokes the refresh token at the provider.
  const revoked = page.waitForResponse((r) => r.url().startsWith(`${identity}/oidc/token/revocation`));
  await page.getByRole('button', { name: 'Sign out' }).click();
  expect((await revoked).status()).toBe(200);
  await page.getByRole('button', { name: 'Continue with the identity provider' }).waitFor();
  await context.close();
});
