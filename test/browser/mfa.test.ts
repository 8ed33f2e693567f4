// Two-step sign-in in Debian's Chromium (issue 29's "done when"): a reviewer whose role must use a
// second factor signs in to the console with a TOTP code, registers a passkey on the Security page
// with Chromium's virtual authenticator (DevTools WebAuthn domain: ctap2, internal, resident key,
// user verification), signs out, and signs in again with the passkey; the session's amr says so.
// Only identity and the gateway run (the Security page asks identity alone). The console is
// reached at http://localhost:<port>: WebAuthn refuses an IP address as the RP id.
import type { Browser, CDPSession, Page } from 'playwright-core';
import { registryOf, SERVICES } from '../../launcher/registry';
import { TEST_ENV } from '../e2e/identity/identity.helpers';
import { startServices, type Harness } from '../support/service-harness';
import { freePort } from '../support/waiting';
import { TotpVerifier } from '../../subgraphs/identity/totp';
import { axeViolations, buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

const RITA = { username: 'rita', password: 'rita-password-1' };

let browser: Browser;
let built: ReturnType<typeof buildConsole>;
let backends: Harness;
let front: Harness;
let identity: string;
let origin: string;
let ritaTotp: TotpVerifier;

async function post(path: string, json: unknown, token?: string): Promise<any> {
  const res = await fetch(`${identity}${path}`, {
    method: 'POST',
    headers: {
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** The first sign-in of someone the policy covers: an authenticator app enrolled through the API. */
async function enrolTotp(username: string, password: string): Promise<{ totp: TotpVerifier; token: string }> {
  const first = await post('/v1/auth/login', { username, password });
  expect(first.body.error).toBe('mfa_enrolment_required');
  const started = await post('/v1/auth/mfa/totp/enrol', { mfa_token: first.body.mfa_token });
  const totp = new TotpVerifier(started.body.secret);
  const done = await post('/v1/auth/mfa/totp/confirm', {
    mfa_token: first.body.mfa_token,
    factor_id: started.body.factor_id,
    code: totp.generate(Date.now()),
  });
  expect(done.status).toBe(200);
  return { totp, token: done.body.access_token };
}

async function passwordStep(page: Page): Promise<void> {
  await page.goto(`${origin}/console/security`);
  await page.getByLabel('Username').fill(RITA.username);
  await page.getByLabel('Password').fill(RITA.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

beforeAll(async () => {
  built = buildConsole();
  browser = await launchChromium();
  const registry = registryOf(SERVICES);
  const ports = { identity: await freePort(), gateway: await freePort() };
  identity = `http://127.0.0.1:${ports.identity}`;
  origin = `http://localhost:${ports.gateway}`;
  const env = {
    ...TEST_ENV,
    IDENTITY_URL: identity,
    IDENTITY_MFA_REQUIRED_ROLES: 'admin,reviewer,platform-admin',
    IDENTITY_WEBAUTHN_RP_ID: 'localhost',
    IDENTITY_WEBAUTHN_ORIGINS: origin,
    CONSOLE_DIR: built.dir,
    LOGIN_MAX_FAILURES: '1000',
  };
  const only = (name: string) => SERVICES.filter((s) => s.name === name);
  backends = await startServices(only('identity'), env, { registry, ports });
  front = await startServices(only('gateway'), env, { db: backends.db, registry, bus: backends.bus, ports });

  const root = await enrolTotp(TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD);
  expect((await post('/v1/roles?role_name=reviewer&scopes=read,write', undefined, root.token)).status).toBe(200);
  expect((await post('/v1/users', { ...RITA, roles: ['reviewer'] }, root.token)).status).toBe(201);
  ritaTotp = (await enrolTotp(RITA.username, RITA.password)).totp;
});

afterAll(async () => {
  await browser?.close();
  await front?.close();
  await backends?.close();
  built?.remove();
});

it('a reviewer signs in with TOTP, registers a passkey on the Security page, and signs in with it', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  const authenticator = await virtualAuthenticator(page);

  // TOTP: the enrolment used this step's code, so the next step's answers the challenge.
  await passwordStep(page);
  await page.getByLabel('Code from your authenticator app').fill(ritaTotp.generate(Date.now() + 30_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByTestId('who').waitFor();
  await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
  await page.getByRole('cell', { name: 'Authenticator app' }).first().waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // Register a passkey: Chromium's virtual authenticator answers navigator.credentials.create().
  await page.getByLabel(/^Name/).fill('laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('cell', { name: 'laptop', exact: true }).waitFor();
  const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
    authenticatorId: authenticator.id,
  });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.rpId).toBe('localhost');
  const stored = await backends.db.prisma.webauthnCredential.findMany({ include: { factor: true } });
  expect(stored.map((c) => [c.credentialId, c.factor.label])).toEqual([
    [Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'), 'laptop'],
  ]);

  // Sign out, and in again with the passkey instead of a code.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Username').waitFor();
  await passwordStep(page);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByTestId('who').waitFor();
  await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
  // This session was opened with the key (a device-bound one: hwk), the one before with the code.
  await page.getByRole('row', { name: /this session/ }).waitFor();
  const current = await page.getByRole('row', { name: /this session/ }).innerText();
  expect(current).toMatch(/pwd \+ (hwk|swk) \+ user/);
  const { credentials: after } = await authenticator.cdp.send('WebAuthn.getCredentials', {
    authenticatorId: authenticator.id,
  });
  expect(after[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);
  const events = await backends.db.prisma.outboxEvent.findMany({
    where: { service: 'identity', eventType: 'auth_mfa_succeeded' },
  });
  expect(events.map((e) => (e.eventData as { method: string }).method)).toEqual(
    expect.arrayContaining(['totp', 'webauthn']),
  );
  await context.close();
});
