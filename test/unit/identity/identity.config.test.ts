import { ConfigError } from '../../../platform/config/env';
import { DEV_DEFAULTS, loadIdentityConfig } from '../../../subgraphs/identity/identity.config';

describe('loadIdentityConfig', () => {
  it('has documented development defaults', () => {
    const c = loadIdentityConfig({});
    expect(c.devAdmin).toEqual(DEV_DEFAULTS.admin);
    expect(c.devUser).toEqual(DEV_DEFAULTS.user);
    expect(c.seedDevUsers).toBe(true);
    expect(c.scryptLogN).toBe(15);
  });

  it('reads the credentials from env', () => {
    const c = loadIdentityConfig({
      DEV_ADMIN_USERNAME: 'boss',
      DEV_ADMIN_PASSWORD: 'pw-boss-123',
      DEV_USER_USERNAME: 'eve',
      DEV_USER_PASSWORD: 'pw-eve-123',
    });
    expect(c.devAdmin).toEqual({ username: 'boss', password: 'pw-boss-123' });
    expect(c.devUser).toEqual({ username: 'eve', password: 'pw-eve-123' });
  });

  it('does not seed well-known development users in production unless asked', () => {
    expect(loadIdentityConfig({ NODE_ENV: 'production' }).seedDevUsers).toBe(false);
    expect(loadIdentityConfig({ NODE_ENV: 'production', IDENTITY_SEED_DEV_USERS: 'true' }).seedDevUsers).toBe(true);
  });

  it('stops on a bad value with a message naming the variable', () => {
    expect(() => loadIdentityConfig({ PASSWORD_SCRYPT_LOG_N: '40' })).toThrow(/PASSWORD_SCRYPT_LOG_N/);
    expect(() => loadIdentityConfig({ IDENTITY_SEED_DEV_USERS: 'maybe' })).toThrow(ConfigError);
    expect(() => loadIdentityConfig({ DEV_ADMIN_USERNAME: 'same', DEV_USER_USERNAME: 'same' })).toThrow(ConfigError);
  });
});
