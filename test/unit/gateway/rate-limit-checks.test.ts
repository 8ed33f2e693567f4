// The router's per-request limit checks answer without a promise when the buckets are in the
// process (issue 31: each promise of a query costs hook calls once tracing's AsyncLocalStorage is
// on), and still refuse with the same 429 and headers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MemoryRateLimiter } from '../../../router/edge/rate-limit/memory-rate-limiter';
import { applyRateLimit } from '../../../router/edge/rate-limit/rate-limit.hook';
import type { RateLimiter } from '../../../router/edge/rate-limit/rate-limiter';
import { TenantRateLimits } from '../../../router/edge/rate-limit/tenant-rate-limits';
import { CLIENT_IP_REFUSAL, limitClientIp } from '../../../router/http/client-ip.limit';

function fakeReply() {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const reply = {
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    code(status: number) {
      sent.status = status;
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return Promise.resolve(reply);
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

const request = (ip: string) => ({ ip, auth: undefined, log: { warn: () => undefined } }) as unknown as FastifyRequest;

describe('router limit checks', () => {
  it('allow synchronously with memory buckets, then refuse with the 429', async () => {
    const limiter = new MemoryRateLimiter({ perSecond: 1, burst: 1 });
    const first = fakeReply();
    expect(limitClientIp(limiter, request('10.0.0.1'), first.reply)).toBe(true);
    const second = fakeReply();
    await expect(limitClientIp(limiter, request('10.0.0.1'), second.reply)).resolves.toBe(false);
    expect(second.sent).toMatchObject({ status: 429, body: { detail: CLIENT_IP_REFUSAL } });
    expect(second.sent.headers['Retry-After']).toBe('1');
    await limiter.close();
  });

  it('tenant bucket: allowed synchronously with its headers, refused with the 429', async () => {
    const limiter = new MemoryRateLimiter({ perSecond: 1, burst: 1 });
    const first = fakeReply();
    expect(applyRateLimit(limiter, request('10.0.0.2'), first.reply)).toBe(true);
    expect(first.sent.headers).toMatchObject({ 'RateLimit-Limit': '1', 'RateLimit-Remaining': '0' });
    const second = fakeReply();
    await expect(applyRateLimit(limiter, request('10.0.0.2'), second.reply)).resolves.toBe(false);
    expect(second.sent.status).toBe(429);
    await limiter.close();
  });

  it("per-tenant limits over memory buckets decide synchronously, with the tenant's own burst", async () => {
    const base = new MemoryRateLimiter({ perSecond: 1, burst: 1 });
    const config = {
      peek: (tenant: string) =>
        tenant === 'roomy' ? { config: { gateway: { rate_limit: { per_second: 1, burst: 3 } } } } : undefined,
      refresh: async () => undefined,
    };
    const limits = new TenantRateLimits(base, config as never);
    expect(limits.takeSync?.('tenant:roomy')).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(limits.takeSync?.('tenant:other')).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    await expect(limits.take('tenant:roomy')).resolves.toMatchObject({ allowed: true, remaining: 1 });
    await base.close();
  });

  it('a remote store (no takeSync) is asked by promise and fails open when down', async () => {
    const down: RateLimiter = {
      take: () => Promise.reject(new Error('redis down')),
      close: async () => undefined,
    };
    const { reply } = fakeReply();
    await expect(applyRateLimit(down, request('10.0.0.3'), reply)).resolves.toBe(true);
    await expect(limitClientIp(down, request('10.0.0.3'), reply)).resolves.toBe(true);
  });
});
