// The webhook module's settings, read once at start (a bad value stops the process with the
// variable's name). Tests pass a config object directly, with tiny backoff and poll intervals.
import { ConfigError, readBool, readInt, readOptional } from '../../../platform/config/env';
import type { Env } from '../../../platform/service';

export interface WebhookConfig {
  /** EVENTS_WEBHOOK_ALLOW_PRIVATE: deliver to loopback/private/link-local addresses too (development, tests). */
  allowPrivate: boolean;
  /** EVENTS_WEBHOOK_ALLOWED_ADDRESSES: comma-separated IPs or CIDRs allowed even though private. */
  allowedAddresses: string[];
  /** EVENTS_WEBHOOK_BACKOFF: delays before each retry, e.g. `5s,5m,30m,2h,5h,10h`; attempts = retries + 1. */
  backoffMs: number[];
  /** Random spread added to each delay (0.1 = up to +10%), so retries of a burst do not arrive together. */
  jitter: number;
  /** EVENTS_WEBHOOK_POLL_MS: how often an idle worker looks for due deliveries. */
  pollMs: number;
  /** EVENTS_WEBHOOK_WORKER_SLOTS: deliveries one process runs at once, over all endpoints. */
  workerSlots: number;
  /** Defaults of a new endpoint (EVENTS_WEBHOOK_TIMEOUT_MS, EVENTS_WEBHOOK_CONCURRENCY) and their ceilings. */
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  defaultConcurrency: number;
  maxConcurrency: number;
  /** How long an old secret (or signing key) keeps signing after a rotation, unless the caller says. */
  rotationOverlapMs: number;
}

export const DEFAULT_BACKOFF = '5s,5m,30m,2h,5h,10h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `5s,5m,2h` → milliseconds; throws ConfigError naming `name` on a bad element. */
export function parseBackoff(raw: string, name = 'EVENTS_WEBHOOK_BACKOFF'): number[] {
  return raw.split(',').map((part) => {
    const m = /^\s*(\d+)\s*(ms|s|m|h)\s*$/.exec(part);
    if (!m) throw new ConfigError(`${name} must be a comma-separated list like ${DEFAULT_BACKOFF}, got "${raw}"`);
    return Number(m[1]) * UNIT_MS[m[2]!]!;
  });
}

export function loadWebhookConfig(env: Env): WebhookConfig {
  return {
    allowPrivate: readBool(env, 'EVENTS_WEBHOOK_ALLOW_PRIVATE', false),
    allowedAddresses: (readOptional(env, 'EVENTS_WEBHOOK_ALLOWED_ADDRESSES') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    backoffMs: parseBackoff(readOptional(env, 'EVENTS_WEBHOOK_BACKOFF') ?? DEFAULT_BACKOFF),
    jitter: 0.1,
    pollMs: readInt(env, 'EVENTS_WEBHOOK_POLL_MS', 1000, { min: 10 }),
    workerSlots: readInt(env, 'EVENTS_WEBHOOK_WORKER_SLOTS', 32, { min: 1, max: 1000 }),
    defaultTimeoutMs: readInt(env, 'EVENTS_WEBHOOK_TIMEOUT_MS', 15_000, { min: 100, max: 120_000 }),
    maxTimeoutMs: 120_000,
    defaultConcurrency: readInt(env, 'EVENTS_WEBHOOK_CONCURRENCY', 4, { min: 1, max: 100 }),
    maxConcurrency: 100,
    rotationOverlapMs: readInt(env, 'EVENTS_WEBHOOK_ROTATION_OVERLAP_S', 24 * 3600, { min: 0 }) * 1000,
  };
}
