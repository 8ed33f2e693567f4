// The webhook module's pure rules: the backoff schedule, topic filters, configuration errors and
// the signature header's shape.
import { Webhook } from 'standardwebhooks';
import { ConfigError } from '../../../platform/config/env';
import { backoffDelay } from '../../../subgraphs/events/webhooks/delivery.worker';
import { topicMatches } from '../../../subgraphs/events/webhooks/topic.filter';
import { loadWebhookConfig, parseBackoff } from '../../../subgraphs/events/webhooks/webhook.config';
import {
  newSecret,
  newSigningKey,
  publicJwk,
  signatureHeader,
} from '../../../subgraphs/events/webhooks/webhook.signer';

describe('backoff', () => {
  it('defaults to 5s, 5m, 30m, 2h, 5h, 10h: seven attempts over about 18 hours', () => {
    const config = loadWebhookConfig({});
    expect(config.backoffMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
    expect(config.allowPrivate).toBe(false);
    const noJitter = { ...config, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(noJitter, n, () => 0.5))).toEqual([...config.backoffMs, null]);
  });

  it('adds at most the configured jitter', () => {
    expect(backoffDelay({ backoffMs: [1000], jitter: 0.1 }, 1, () => 0.999)).toBe(1100);
    expect(backoffDelay({ backoffMs: [1000], jitter: 0.1 }, 1, () => 0)).toBe(1000);
  });

  it('parses units and refuses anything else, naming the variable', () => {
    expect(parseBackoff('250ms, 2s,1m,1h')).toEqual([250, 2000, 60_000, 3_600_000]);
    expect(() => loadWebhookConfig({ EVENTS_WEBHOOK_BACKOFF: '5 minutes' })).toThrow(ConfigError);
    expect(() => loadWebhookConfig({ EVENTS_WEBHOOK_BACKOFF: '5 minutes' })).toThrow(/EVENTS_WEBHOOK_BACKOFF/);
    expect(() => loadWebhookConfig({ EVENTS_WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(/EVENTS_WEBHOOK_ALLOW_PRIVATE/);
  });
});

describe('topic filters', () => {
  it('matches everything when empty, exact names, and prefixes ending in *', () => {
    expect(topicMatches([], 'workflow.completed')).toBe(true);
    expect(topicMatches(['workflow.completed'], 'workflow.completed')).toBe(true);
    expect(topicMatches(['workflow.completed'], 'workflow.completed.v2')).toBe(false);
    expect(topicMatches(['workflow.*'], 'workflow.failed')).toBe(true);
    expect(topicMatches(['workflow.*'], 'pack.certified')).toBe(false);
    expect(topicMatches(['*'], 'pack.certified')).toBe(true);
  });
});

describe('signature header', () => {
  it('carries one v1 per secret and one v1a per key, and v1 is what standardwebhooks verifies', () => {
    const [a, b] = [newSecret(), newSecret()];
    const key = newSigningKey();
    expect(publicJwk(key.kid, key.privateKey)).not.toHaveProperty('d');
    const timestamp = new Date();
    const body = '{"hello":"world"}';
    const header = signatureHeader({ secrets: [a, b], privateKeys: [key.privateKey] }, 'msg_1', timestamp, body);
    expect(header.split(' ').map((s) => s.split(',')[0])).toEqual(['v1', 'v1', 'v1a']);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': header,
    };
    expect(new Webhook(a).verify(body, headers)).toEqual({ hello: 'world' });
    expect(new Webhook(b).verify(body, headers)).toEqual({ hello: 'world' });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
  });
});
