// WebauthnService over strict fakes: the ceremonies' checks (challenge taken once, origin, RP id
// hash, signature counter, the user's own credentials only), who may add a key, the amr a key
// records, and the refusal of a malformed credential. The authenticator is the software one that
// speaks the wire format; verification is @simplewebauthn/server's.
import { randomBytes } from 'node:crypto';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { ConflictError, InputError } from '../../../platform/errors/domain-errors';
import { MfaService } from '../../../subgraphs/identity/mfa.service';
import type { MfaFactorRecord } from '../../../subgraphs/identity/mfa.types';
import { SecretBox } from '../../../subgraphs/identity/secret.box';
import { authenticationCredential, registrationCredential } from '../../../subgraphs/identity/webauthn.credential';
import {
  amrOfCredential,
  hashChallenge,
  signedChallengeOf,
  WebauthnService,
} from '../../../subgraphs/identity/webauthn.service';
import type { WebauthnCredentialRecord } from '../../../subgraphs/identity/webauthn.types';
import { SoftAuthenticator } from '../../support/soft-authenticator';
import { caller, fakeUnitOfWork, ROLE_USER, userRecord, type FakeStores } from './fakes';

const ORIGIN = 'https://console.example.com';
const SETTINGS = { rpId: 'example.com', rpName: 'Test', origins: [ORIGIN], challengeSeconds: 300 };
const NOW = new Date('2026-11-28T00:00:00Z');
const user = userRecord();
const ctx = (amr: string[]) => ({ auth: caller({ username: 'alice', roles: ['user'], amr }), correlationId: 'c-1' });

function build(fakes: FakeStores) {
  const stores = fakeUnitOfWork(fakes);
  const mfa = new MfaService({
    stores,
    box: new SecretBox(randomBytes(32)),
    issuer: 'Test',
    access: new TenantAccess(async () => {}),
    now: () => NOW,
  });
  return { stores, service: new WebauthnService({ stores, mfa, settings: SETTINGS, now: () => NOW }) };
}

const factor = (kind: 'totp' | 'webauthn'): MfaFactorRecord => ({
  id: '22222222-2222-4222-8222-222222222222',
  tenantId: 'default',
  userId: user.id,
  kind,
  label: null,
  secret: '',
  confirmedAt: NOW,
  lastUsedStep: null,
  lastUsedAt: null,
  createdAt: NOW,
});

/** Registers a key through the service (fakes keep what it writes): the stored credential. */
async function registered(authenticator: SoftAuthenticator): Promise<WebauthnCredentialRecord> {
  let remembered = '';
  let stored: WebauthnCredentialRecord | undefined;
  const { service, stores } = build({
    users: { findByUsernames: async () => [user] },
    mfaFactors: {
      listForUser: async () => [],
      create: async () => factor('webauthn'),
      confirm: async () => true,
    },
    webauthnCredentials: {
      listForUser: async () => [],
      exists: async () => false,
      create: async (tenantId, c) => (stored = { ...c, id: 'cred-row', tenantId, createdAt: NOW }),
    },
    webauthnChallenges: {
      create: async (c) => {
        remembered = c.challengeHash;
        return {
          id: 'ch',
          tenantId: c.tenantId,
          userId: c.userId,
          ceremony: c.ceremony,
          expiresAt: c.expiresAt,
          consumedAt: null,
        };
      },
      take: async (_t, _u, hash) =>
        hash === remembered
          ? {
              id: 'ch',
              tenantId: 'default',
              userId: user.id,
              ceremony: 'registration',
              expiresAt: NOW,
              consumedAt: NOW,
            }
          : null,
    },
    recoveryCodes: { countUnused: async () => 0, replace: async () => {} },
  });
  const options = await service.registrationOptionsForCaller(ctx(['pwd']));
  expect(options.rp).toEqual({ id: 'example.com', name: 'Test' });
  const done = await service.registerForCaller(ctx(['pwd']), {
    credential: registrationCredential(authenticator.create(options)),
  });
  expect(done.recoveryCodes).toHaveLength(10);
  expect(done.amr).toEqual(['hwk', 'user']);
  expect(stores.eventsInTransaction.map((e) => e.eventType)).toEqual([
    'mfa_factor_enrolled',
    'mfa_recovery_codes_generated',
  ]);
  return stored!;
}

describe('WebauthnService', () => {
  it('registers a key (attestation none) with the origin and RP id of the settings', async () => {
    const key = new SoftAuthenticator(ORIGIN);
    const stored = await registered(key);
    expect(stored.credentialId).toBe(key.credentials[0]!.id);
    expect(stored.signCount).toBe(0);
    expect(stored.deviceType).toBe('singleDevice');
  });

  it('refuses an attestation made for another origin (422), after taking the challenge', async () => {
    const key = new SoftAuthenticator('https://evil.example');
    await expect(registered(key)).rejects.toBeInstanceOf(InputError);
  });

  it('someone with a factor adds a key only after a second-factor sign-in', async () => {
    const { service } = build({
      users: { findByUsernames: async () => [user] },
      mfaFactors: { listForUser: async () => [factor('totp')] },
    });
    await expect(service.registrationOptionsForCaller(ctx(['pwd']))).rejects.toMatchObject({
      message: expect.stringContaining('Multi-factor authentication required'),
    });
  });

  describe('assertions', () => {
    const key = new SoftAuthenticator(ORIGIN);
    let credential: WebauthnCredentialRecord;
    beforeAll(async () => {
      credential = await registered(key);
    });

    function assertionStores(recorded: number[], accept = true): FakeStores {
      return {
        webauthnCredentials: {
          listForUser: async () => [credential],
          recordSignCount: async (_t, _id, n) => (recorded.push(n), accept),
        },
        mfaFactors: { touch: async () => {} },
      };
    }
    const options = { challenge: 'Y2hhbGxlbmdl', rpId: 'example.com' };

    it('accepts a good assertion and records its counter; the amr names a hardware key', async () => {
      const recorded: number[] = [];
      const { service, stores } = build(assertionStores(recorded));
      const check = await service.checkAssertion(stores, user, authenticationCredential(key.get(options)));
      expect(check).toEqual({ ok: true, amr: ['hwk', 'user'] });
      expect(recorded).toEqual([1]);
    });

    it.each([
      ['another origin', { origin: 'https://evil.example' }, 'bad_origin'],
      ['another RP id hash', { rpId: 'evil.example' }, 'bad_rp_id'],
      ['a counter not above the stored one', { counter: 3 }, 'sign_count_regressed'],
      ["another user's credential id", { credentialId: 'b3RoZXI' }, 'unknown_credential'],
    ])('refuses %s', async (_what, tamper, reason) => {
      const { service, stores } = build(assertionStores([]));
      const stored = { ...credential, signCount: 5 };
      const s = {
        ...stores,
        webauthnCredentials: { ...stores.webauthnCredentials, listForUser: async () => [stored] },
      };
      expect(await service.checkAssertion(s, user, authenticationCredential(key.get(options, tamper)))).toEqual({
        ok: false,
        reason,
      });
    });

    it('a counter another answer already recorded (the conditional update lost) is a regression', async () => {
      const { service, stores } = build(assertionStores([], false));
      const check = await service.checkAssertion(stores, user, authenticationCredential(key.get(options)));
      expect(check).toEqual({ ok: false, reason: 'sign_count_regressed' });
    });

    it('takes the challenge the assertion signed, by its hash, for this user and ceremony only', async () => {
      const asked: unknown[] = [];
      const { service } = build({
        webauthnChallenges: { take: async (...args) => (asked.push(args), null) },
      });
      expect(await service.takeChallenge(user, key.get(options), 'authentication')).toBe(false);
      expect(asked).toEqual([['default', user.id, hashChallenge('Y2hhbGxlbmdl'), 'authentication', NOW]]);
    });
  });

  it('a synced passkey is a software key', () => {
    expect(amrOfCredential({ deviceType: 'multiDevice' })).toEqual(['swk', 'user']);
    expect(amrOfCredential({ deviceType: 'singleDevice' })).toEqual(['hwk', 'user']);
  });

  it('reads the challenge from clientDataJSON, and nothing from garbage', () => {
    const data = Buffer.from(JSON.stringify({ challenge: 'abc' })).toString('base64url');
    expect(signedChallengeOf({ response: { clientDataJSON: data } })).toBe('abc');
    expect(signedChallengeOf({ response: { clientDataJSON: 'not json' } })).toBeNull();
    expect(signedChallengeOf({})).toBeNull();
  });

  it('refuses a malformed credential with a 422, not an error inside the verification', () => {
    expect(() => authenticationCredential('x')).toThrow(InputError);
    expect(() => authenticationCredential({ id: 'a', rawId: 'a', type: 'public-key', response: {} })).toThrow(
      InputError,
    );
    expect(() => registrationCredential({ id: 'a!', rawId: 'a', type: 'public-key' })).toThrow(InputError);
  });

  it('the last factor of someone whose role the policy covers cannot be removed (409); another can', async () => {
    const reviewer = userRecord({ roles: [{ ...ROLE_USER, name: 'reviewer' }] });
    const two = [factor('webauthn'), { ...factor('totp'), id: '33333333-3333-4333-8333-333333333333' }];
    const removed: string[] = [];
    const stores = fakeUnitOfWork({
      users: { findByUsernames: async () => [reviewer] },
      mfaFactors: {
        listForUser: async () => two.filter((f) => !removed.includes(f.id)),
        remove: async (_t, _u, id) => (removed.push(id), 1),
      },
    });
    const mfa = new MfaService({
      stores,
      box: new SecretBox(randomBytes(32)),
      issuer: 'Test',
      access: new TenantAccess(async () => {}),
      requiredRoles: async () => ['reviewer'],
    });
    const strong = {
      auth: caller({ username: 'alice', roles: ['reviewer'], amr: ['pwd', 'hwk'] }),
      correlationId: 'c',
    };
    await mfa.removeFactor(strong, two[1]!.id);
    await expect(mfa.removeFactor(strong, two[0]!.id)).rejects.toBeInstanceOf(ConflictError);
  });
});
