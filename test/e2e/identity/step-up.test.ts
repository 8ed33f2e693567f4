// Step-up in another service: with IDENTITY_MFA_REQUIRED_ROLES=reviewer, certifying a rule pack
// needs a token whose amr shows a second factor (403 mfa_required otherwise, GraphQL FORBIDDEN with
// extensions.reason), and a reviewer signing in with a password alone is told to enrol.
import { AccessTokens } from '../../../platform/auth/jwt';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import { identityService } from '../../../services/identity';
import { defineRulePackRegistryService } from '../../../services/rulepack-registry';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { registryClient, samplePack } from '../rulepack-registry/rulepack.support';
import { call, login, TEST_ENV } from './identity.helpers';

jest.setTimeout(120_000);

describe('step-up for sensitive actions (rule-pack certification)', () => {
  let harness: Harness;
  const bus = createMemoryEventBus();
  afterAll(async () => {
    await harness?.close();
    await bus.close();
  });

  it('a reviewer certifies only with a second factor', async () => {
    harness = await startServices([identityService, defineRulePackRegistryService({ bus })], {
      ...TEST_ENV,
      IDENTITY_MFA_REQUIRED_ROLES: 'reviewer',
    });
    const identity = harness.services.identity!.url;
    const api = registryClient(harness.services['rulepack-registry']!.url);
    // root is an admin, which this policy does not cover: a password is enough.
    const root = (await login(identity, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
    expect(
      (await call(`${identity}/v1/roles?role_name=reviewer&scopes=read`, { method: 'POST', token: root })).status,
    ).toBe(200);
    const created = await call(`${identity}/v1/users`, {
      method: 'POST',
      token: root,
      json: { username: 'rita', password: 'rita-password-1', roles: ['reviewer'] },
    });
    expect(created.status).toBe(201);
    const ritaLogin = await call(`${identity}/v1/auth/login`, {
      method: 'POST',
      json: { username: 'rita', password: 'rita-password-1' },
    });
    expect(ritaLogin.status).toBe(401);
    expect(ritaLogin.body.error).toBe('mfa_enrolment_required');

    const pack = samplePack('step-up', '1.0.0');
    expect((await api.submit(root, { pack })).status).toBe(201);
    expect((await api.requestReview(root, 'step-up', '1.0.0')).status).toBe(200);

    const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
    const rita = (amr: string[]) =>
      tokens.issue({ username: 'rita', tenantId: 'default', roles: ['reviewer'], scopes: ['read'], amr });
    const weak = await api.certify(await rita(['pwd']), 'step-up', '1.0.0');
    expect(weak.status).toBe(403);
    expect(weak.body.detail).toBe(
      'Multi-factor authentication required to certify a rule pack: sign in again with your second factor',
    );
    const weakGraphql = await call(`${harness.services['rulepack-registry']!.url}/graphql`, {
      method: 'POST',
      token: await rita(['pwd']),
      json: { query: 'mutation { certifyRulePack(id: "step-up", version: "1.0.0") { status } }' },
    });
    expect(weakGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'mfa_required' });
    // A token without amr at all (issued before MFA existed) is no better than a password.
    const legacy = await tokens.issue({ username: 'rita', tenantId: 'default', roles: ['reviewer'], scopes: ['read'] });
    expect((await api.certify(legacy, 'step-up', '1.0.0')).status).toBe(403);

    const strong = await api.certify(await rita(['pwd', 'otp']), 'step-up', '1.0.0');
    expect(strong.status).toBe(200);
    expect(strong.body).toMatchObject({ status: 'certified', reviewers: expect.arrayContaining(['rita']) });
  });
});
