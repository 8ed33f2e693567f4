// PLATFORM_NAMESPACE: one setting names the NATS stream, prefixes its subjects and every Redis key;
// without it the historical names stay. Also the stream's limits and the in-memory PGlite setting.
import { loadPlatformConfig, redisKeyPrefix, streamNames } from '../../../platform/config/platform.config';
import { ConfigError } from '../../../platform/config/env';
import { streamConfigOf } from '../../../platform/events/nats-event-bus';

it('keeps the historical names without a namespace', () => {
  const config = loadPlatformConfig({});
  expect(config.namespace).toBe('');
  expect(streamNames(config.namespace)).toEqual({ stream: 'PLATFORM_EVENTS', subjectPrefix: 'platform.' });
  expect(redisKeyPrefix(config.namespace)).toBe('');
});

it('prefixes the stream, its subjects and the Redis keys with the namespace', () => {
  const config = loadPlatformConfig({ PLATFORM_NAMESPACE: 'eu-prod' });
  expect(streamNames(config.namespace)).toEqual({
    stream: 'PLATFORM_EVENTS_EU_PROD',
    subjectPrefix: 'eu-prod.platform.',
  });
  expect(redisKeyPrefix(config.namespace)).toBe('eu-prod:');
});

it.each(['EU', 'a.b', 'a b', '-x', 'x'.repeat(33), 'a>b'])('refuses the namespace %p', (namespace) => {
  expect(() => loadPlatformConfig({ PLATFORM_NAMESPACE: namespace })).toThrow(ConfigError);
});

it('bounds the stream on file storage with discard policy old, limits from the environment', () => {
  const config = loadPlatformConfig({
    NATS_STREAM_MAX_BYTES: '2048',
    NATS_STREAM_MAX_MSGS: '10',
    NATS_STREAM_MAX_AGE_SECONDS: '60',
  });
  expect(config.stream).toEqual({ storage: 'file', maxBytes: 2048, maxMsgs: 10, maxAgeSeconds: 60 });
  expect(streamConfigOf('S', 'p.', config.stream)).toMatchObject({
    name: 'S',
    subjects: ['p.>'],
    storage: 'file',
    discard: 'old',
    retention: 'limits',
    max_bytes: 2048,
    max_msgs: 10,
    max_age: 60e9,
  });
  expect(loadPlatformConfig({ NATS_STREAM_STORAGE: 'memory' }).stream.storage).toBe('memory');
  expect(() => loadPlatformConfig({ NATS_STREAM_MAX_MSGS: '0' })).toThrow(ConfigError);
});

it('keeps PGLITE_DIR=memory:// as the in-memory database rather than a folder named memory:', () => {
  expect(loadPlatformConfig({ PGLITE_DIR: 'memory://' }).database.pgliteDir).toBe('memory://');
  expect(loadPlatformConfig({ PGLITE_DIR: 'data' }).database.pgliteDir).toMatch(/[/\\]data$/);
});
