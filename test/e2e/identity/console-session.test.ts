// The console's sign-in routes (router/console/session.routes.ts) over a real identity with the
// issue's MFA policy: the password step relays identity's challenge as a 401 (no cookie), the
// code step completes the sign-in with the httpOnly refresh cookie, and a wrong code is a 401.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { IdentityClient } from '../../../platform/clients/identity.client';
import { registerErrorHandler } from '../../../platform/http/error-handler';
import { registerSessionRoutes } from '../../../router/console/session.routes';
import type { Harness } from '../../support/service-harness';
import { TotpVerifier } from '../../../subgraphs/identity/totp';
import { call, startIdentity, TEST_ENV } from './identity.helpers';

jest.setTimeout(120_000);

describe('console sign-in with a second factor', () => {
  let harness: Harness;
  let url: string;
  let app: FastifyInstance;
  let base: string;

  /** The router's answer as status, cookie and JSON (real HTTP: no inject, whose cookie module is ESM-only). */
  async function post(path: string, payload: unknown) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    return { statusCode: res.status, cookie: res.headers.get('set-cookie'), body: (await res.json()) as any };
  }

  beforeAll(async () => {
    ({ harness, url } = await startIdentity({ IDENTITY_MFA_REQUIRED_ROLES: 'admin' }));
    app = Fastify();
    registerErrorHandler(app);
    registerSessionRoutes(app, { identity: new IdentityClient(url), refreshTokenDays: 7 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
  });

  const signIn = () =>
    post('/console/session', { username: TEST_ENV.DEV_ADMIN_USERNAME, password: TEST_ENV.DEV_ADMIN_PASSWORD });

  it('relays the challenge, then signs in with the code', async () => {
    // First sign-in: enrolment is owed (the console has no enrolment page: the API does it).
    const first = await signIn();
    expect(first.statusCode).toBe(401);
    expect(first.cookie).toBeNull();
    const enrolChallenge = first.body;
    expect(enrolChallenge).toMatchObject({
      error: 'mfa_enrolment_required',
      mfaToken: expect.any(String),
      factors: ['totp', 'webauthn'],
    });
    const started = await call(`${url}/v1/auth/mfa/totp/enrol`, {
      method: 'POST',
      json: { mfa_token: enrolChallenge.mfaToken },
    });
    const totp = new TotpVerifier(started.body.secret);
    const confirmed = await call(`${url}/v1/auth/mfa/totp/confirm`, {
      method: 'POST',
      json: { mfa_token: enrolChallenge.mfaToken, factor_id: started.body.factor_id, code: totp.generate(Date.now()) },
    });
    expect(confirmed.status).toBe(200);

    const second = await signIn();
    expect(second.statusCode).toBe(401);
    const challenge = second.body;
    expect(challenge).toMatchObject({ error: 'mfa_required', factors: ['totp', 'recovery_code'], expiresIn: 300 });
    expect(challenge.detail).toMatch(/^Multi-factor authentication required/);

    const wrong = await post('/console/session/mfa', { mfaToken: challenge.mfaToken, code: '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.cookie).toBeNull();

    const ok = await post('/console/session/mfa', {
      mfaToken: challenge.mfaToken,
      code: totp.generate(Date.now() + 30_000),
    });
    expect(ok.statusCode).toBe(200);
    expect(String(ok.cookie)).toMatch(/HttpOnly/i);
    const claims = JSON.parse(Buffer.from(ok.body.accessToken.split('.')[1], 'base64url').toString('utf8'));
    expect(claims).toMatchObject({ sub: 'root', amr: ['pwd', 'otp'], acr: 'aal2' });

    // A recovery code works through the same route.
    const third = (await signIn()).body;
    const recovery = await post('/console/session/mfa', {
      mfaToken: third.mfaToken,
      code: confirmed.body.recovery_codes[0],
      method: 'recovery_code',
    });
    expect(recovery.statusCode).toBe(200);
    // Bad input is a 422, not a 500.
    expect((await post('/console/session/mfa', { mfaToken: 'x', code: '1', method: 'sms' })).statusCode).toBe(422);
  });
});
