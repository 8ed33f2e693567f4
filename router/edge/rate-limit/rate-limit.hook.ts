// Applies the per-tenant bucket to a request and writes the RateLimit-* headers (IETF draft
// names) on every answer, plus Retry-After on a 429. Anonymous callers are limited per address.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter } from './rate-limiter';

export function rateLimitKey(request: FastifyRequest): string {
  return request.auth ? `tenant:${request.auth.tenantId}` : `ip:${request.ip}`;
}

/** True when the request may continue; otherwise the 429 has been sent. */
export async function applyRateLimit(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  let decision;
  try {
    decision = await limiter.take(rateLimitKey(request));
  } catch (err) {
    // A rate-limit store outage must not take the platform down: fail open and say so.
    request.log.warn({ err }, 'rate limiter unavailable; request allowed');
    return true;
  }
  reply.header('RateLimit-Limit', String(decision.limit));
  reply.header('RateLimit-Remaining', String(decision.remaining));
  reply.header('RateLimit-Reset', String(decision.resetSeconds));
  if (decision.allowed) return true;
  reply.header('Retry-After', String(decision.retryAfterSeconds));
  await reply.code(429).send({ detail: 'Rate limit exceeded for this tenant, retry later' });
  return false;
}
