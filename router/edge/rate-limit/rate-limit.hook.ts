// Applies the per-tenant bucket to a request and writes the RateLimit-* headers (IETF draft
// names) on every answer, plus Retry-After on a 429. Anonymous callers are limited per address.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateDecision, RateLimiter } from './rate-limiter';

export function rateLimitKey(request: FastifyRequest): string {
  return request.auth ? `tenant:${request.auth.tenantId}` : `ip:${request.ip}`;
}

/**
 * True when the request may continue; otherwise the 429 has been sent. Answered without a promise
 * when the limiter decides in the process (memory buckets) and allows: a router query's checks
 * then cost no promise, no microtask turn (issue 31).
 */
export function applyRateLimit(
  limiter: RateLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean | Promise<boolean> {
  if (limiter.takeSync) return decided(limiter.takeSync(rateLimitKey(request)), reply);
  return applyRemoteRateLimit(limiter, request, reply);
}

async function applyRemoteRateLimit(limiter: RateLimiter, request: FastifyRequest, reply: FastifyReply) {
  let decision;
  try {
    decision = await limiter.take(rateLimitKey(request));
  } catch (err) {
    // A rate-limit store outage must not take the platform down: fail open and say so.
    request.log.warn({ err }, 'rate limiter unavailable; request allowed');
    return true;
  }
  return decided(decision, reply);
}

function decided(decision: RateDecision, reply: FastifyReply): boolean | Promise<boolean> {
  reply.header('RateLimit-Limit', String(decision.limit));
  reply.header('RateLimit-Remaining', String(decision.remaining));
  reply.header('RateLimit-Reset', String(decision.resetSeconds));
  if (decision.allowed) return true;
  reply.header('Retry-After', String(decision.retryAfterSeconds));
  return refuse(reply);
}

async function refuse(reply: FastifyReply): Promise<false> {
  await reply.code(429).send({ detail: 'Rate limit exceeded for this tenant, retry later' });
  return false;
}
