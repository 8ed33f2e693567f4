// A token bucket per client address that runs before authentication, on /api/v1, /graphql and
// the graphql-ws upgrade. The per-tenant bucket only applies once a token is verified, so a
// flood of invalid tokens was never limited (121k 401s in 15 s, no 429): verifying every one of
// them is the cost an attacker imposes. The same limiter classes as the tenant bucket (memory,
// or Redis with REDIS_URL so several gateways share one budget), under their own Redis prefix so
// the keys never meet the tenant limiter's `ip:` keys for anonymous callers.
//
// The address is the client's as platform/http/trusted-proxies.ts resolves it: the TCP peer, or,
// when the peer is a balancer named in TRUSTED_PROXIES, the right-most untrusted address of its
// X-Forwarded-For (Fastify's request.ip with trustProxy; clientAddress() for the upgrade). Behind a
// balancer that is not listed every client shares the balancer's address and budget.
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MemoryRateLimiter } from '../edge/rate-limit/memory-rate-limiter';
import type { BucketSettings, RateDecision, RateLimiter } from '../edge/rate-limit/rate-limiter';
import { RedisRateLimiter } from '../edge/rate-limit/redis-rate-limiter';

/** Where a refusal is logged when the limiter's store is down (a request's or the app's logger). */
interface WarnLogger {
  warn(obj: object, msg: string): void;
}

const REDIS_PREFIX = 'gateway:ratelimit:pre-auth:';
export const CLIENT_IP_REFUSAL = 'Too many requests from this address, retry later';

/** Undefined when the limit is off (perSecond 0). */
export function createClientIpLimiter(
  settings: BucketSettings,
  redisUrl?: string,
  keyPrefix = '',
): RateLimiter | undefined {
  if (settings.perSecond <= 0) return undefined;
  return redisUrl
    ? new RedisRateLimiter(redisUrl, settings, keyPrefix + REDIS_PREFIX)
    : new MemoryRateLimiter(settings);
}

/** A refusal for this address, or undefined when it may go on (or the store is down: fail open). */
export async function refusedAddress(
  limiter: RateLimiter | undefined,
  address: string | undefined,
  logger: WarnLogger,
): Promise<RateDecision | undefined> {
  if (!limiter) return undefined;
  try {
    const decision = await limiter.take(`ip:${address ?? 'unknown'}`);
    return decision.allowed ? undefined : decision;
  } catch (err) {
    // As the tenant limiter: an outage of the limiter must not become an outage of the platform.
    logger.warn({ err }, 'client address rate limiter unavailable; request allowed');
    return undefined;
  }
}

/**
 * For Fastify routes: true when the request may go on; otherwise the 429 has been sent. Answered
 * without a promise when the limiter decides in the process (memory buckets, or the limit off):
 * a router query's checks then cost no promise, no microtask turn (issue 31).
 */
export function limitClientIp(
  limiter: RateLimiter | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean | Promise<boolean> {
  if (!limiter) return true;
  if (limiter.takeSync) {
    const decision = limiter.takeSync(`ip:${request.ip ?? 'unknown'}`);
    return decision.allowed ? true : refuseAddress(decision, reply);
  }
  return refusedAddress(limiter, request.ip, request.log).then((refused) =>
    refused ? refuseAddress(refused, reply) : true,
  );
}

async function refuseAddress(refused: RateDecision, reply: FastifyReply): Promise<false> {
  reply.header('RateLimit-Limit', String(refused.limit));
  reply.header('RateLimit-Remaining', String(refused.remaining));
  reply.header('RateLimit-Reset', String(refused.resetSeconds));
  reply.header('Retry-After', String(refused.retryAfterSeconds));
  await reply.code(429).send({ detail: CLIENT_IP_REFUSAL });
  return false;
}

/** For a WebSocket upgrade from `address` (already resolved through the trusted proxies): true when
 * it may go on; otherwise a 429 was written and the socket closed. */
export async function limitUpgrade(
  limiter: RateLimiter | undefined,
  address: string | undefined,
  socket: Duplex,
  logger: WarnLogger,
): Promise<boolean> {
  const refused = await refusedAddress(limiter, address, logger);
  if (!refused) return true;
  const body = JSON.stringify({ detail: CLIENT_IP_REFUSAL });
  socket.end(
    'HTTP/1.1 429 Too Many Requests\r\n' +
      `Retry-After: ${refused.retryAfterSeconds}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  return false;
}
