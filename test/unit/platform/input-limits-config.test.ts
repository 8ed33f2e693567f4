// The input guard's settings: documented defaults, and a bad value stops the start naming it.
import { ConfigError } from '../../../platform/config/env';
import { loadPlatformConfig } from '../../../platform/config/platform.config';

it('defaults: 1 MiB bodies, JSON depth 64, strings of 1,000,000 characters, 8 KiB URLs, 16 KiB headers', () => {
  expect(loadPlatformConfig({}).http).toMatchObject({
    bodyLimitBytes: 1048576,
    jsonMaxDepth: 64,
    jsonMaxStringLength: 1_000_000,
    maxUrlLength: 8192,
    maxHeaderBytes: 16384,
  });
});

it('reads the settings', () => {
  const http = loadPlatformConfig({
    JSON_MAX_DEPTH: '20',
    JSON_MAX_STRING_LENGTH: '5000',
    HTTP_MAX_URL_LENGTH: '2048',
    HTTP_MAX_HEADER_BYTES: '32768',
  }).http;
  expect(http).toMatchObject({
    jsonMaxDepth: 20,
    jsonMaxStringLength: 5000,
    maxUrlLength: 2048,
    maxHeaderBytes: 32768,
  });
});

it.each([
  [{ JSON_MAX_DEPTH: '0' }, /JSON_MAX_DEPTH must be >= 1/],
  [{ JSON_MAX_DEPTH: '5000' }, /JSON_MAX_DEPTH must be <= 1000/],
  [{ JSON_MAX_STRING_LENGTH: 'lots' }, /JSON_MAX_STRING_LENGTH must be an integer/],
  [{ HTTP_MAX_URL_LENGTH: '10' }, /HTTP_MAX_URL_LENGTH must be >= 256/],
  [{ HTTP_MAX_HEADER_BYTES: '100' }, /HTTP_MAX_HEADER_BYTES must be >= 1024/],
])('stops with a clear message for %j', (env, message) => {
  expect(() => loadPlatformConfig(env)).toThrow(ConfigError);
  expect(() => loadPlatformConfig(env)).toThrow(message);
});
