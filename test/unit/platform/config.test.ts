import { ConfigError } from '../../../platform/config/env';
import { loadPlatformConfig, serviceRequiresAuth, servicePort } from '../../../platform/config/platform.config';
import { manifestOf } from '../../../launcher/registry';

describe('platform configuration', () => {
  it('uses the spec defaults', () => {
    const config = loadPlatformConfig({});
    expect(config.auth.accessTokenExpireMinutes).toBe(1440);
    expect(config.auth.refreshTokenExpireDays).toBe(7);
    expect(config.auth.algorithm).toBe('HS256');
    expect(config.auth.requireAuth).toBe(true); // the secure default (README): a token on every port
    expect(config.logLevel).toBe('INFO');
    expect(config.database.url).toBeUndefined();
  });

  it("decides each service's auth mode by one rule: its own switch, else REQUIRE_AUTH, else a token", () => {
    const ledger = { name: 'ledger' };
    const broker = { name: 'ai-broker' };
    expect(serviceRequiresAuth({}, ledger)).toBe(true);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'false' }, ledger)).toBe(false);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'false' }, broker)).toBe(false);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'false', LEDGER_REQUIRE_AUTH: 'true' }, ledger)).toBe(true);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'false', LEDGER_REQUIRE_AUTH: 'true' }, broker)).toBe(false);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'true', AI_BROKER_REQUIRE_AUTH: 'false' }, broker)).toBe(false);
    expect(serviceRequiresAuth({ LEDGER_REQUIRE_AUTH: 'false' }, ledger)).toBe(false);
    expect(serviceRequiresAuth({ LEDGER_REQUIRE_AUTH: 'false' }, broker)).toBe(true);
    expect(serviceRequiresAuth({ REQUIRE_AUTH: 'false', LEDGER_REQUIRE_AUTH: '' }, ledger)).toBe(false); // empty counts as unset
    expect(() => serviceRequiresAuth({ LEDGER_REQUIRE_AUTH: 'maybe' }, ledger)).toThrow(
      /LEDGER_REQUIRE_AUTH must be true or false/,
    );
  });

  it('generates a JWT secret when JWT_SECRET_KEY is absent, and says so', () => {
    const a = loadPlatformConfig({});
    const b = loadPlatformConfig({});
    expect(a.auth.jwtSecretGenerated).toBe(true);
    expect(a.auth.jwtSecret).not.toEqual(b.auth.jwtSecret);
    expect(a.auth.jwtSecret.length).toBeGreaterThanOrEqual(32);
  });

  it.each([
    [{ ACCESS_TOKEN_EXPIRE_MINUTES: 'soon' }, /ACCESS_TOKEN_EXPIRE_MINUTES must be an integer/],
    [{ ACCESS_TOKEN_EXPIRE_MINUTES: '0' }, /ACCESS_TOKEN_EXPIRE_MINUTES must be >= 1/],
    [{ ALGORITHM: 'RS256' }, /ALGORITHM must be HS256/],
    [{ LOG_LEVEL: 'LOUD' }, /LOG_LEVEL must be one of/],
    [{ REQUIRE_AUTH: 'maybe' }, /REQUIRE_AUTH must be true or false/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must use postgres/],
    [{ JWT_SECRET_KEY: 'short' }, /at least 32 bytes/],
    [{ IDENTITY_PORT: '70000' }, /IDENTITY_PORT must be <= 65535/],
  ])('stops with a clear message for %j', (env, message) => {
    expect(() => {
      const config = loadPlatformConfig(env);
      servicePort(env, manifestOf('identity'));
      return config;
    }).toThrow(ConfigError);
    expect(() => {
      loadPlatformConfig(env);
      servicePort(env, manifestOf('identity'));
    }).toThrow(message);
  });

  it('gives each service its documented port, PORT only when it runs alone', () => {
    expect(servicePort({}, manifestOf('gateway'))).toBe(8080);
    expect(servicePort({}, manifestOf('identity'))).toBe(8082);
    expect(servicePort({}, manifestOf('ledger'))).toBe(8136);
    expect(servicePort({ PORT: '9000' }, manifestOf('ledger'))).toBe(8136);
    expect(servicePort({ PORT: '9000' }, manifestOf('ledger'), true)).toBe(9000);
    expect(servicePort({ LEDGER_PORT: '9100', PORT: '9000' }, manifestOf('ledger'), true)).toBe(9100);
  });

  it('accepts the ledger spec name POSTGRES_URL for the database', () => {
    expect(loadPlatformConfig({ POSTGRES_URL: 'postgresql://u@h:5432/db' }).database.url).toBe(
      'postgresql://u@h:5432/db',
    );
  });
});
