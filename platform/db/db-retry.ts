// Database failures (spec 03, "Errors"): which errors mean "the database is away for now" or "a
// concurrent writer got in the way", and a retry with exponential backoff for both. When the
// database stays away the caller gets UnavailableError, which both doors turn into
// 503 / SERVICE_UNAVAILABLE. The REST error handler and the GraphQL formatter use the same test.
import { UnavailableError } from '../errors/domain-errors';

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 25, maxDelayMs: 800 };

/** Conflicts worth retrying at once: deadlock, serialisation failure, unique race on a head row. */
const CONFLICT_CODES = new Set(['40P01', '40001']);
/**
 * The database (or the way to it) is gone for now: socket errors, PostgreSQL shutdown / too many
 * connections / connection exceptions, Prisma's connection failures and pool timeout.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  'P1001',
  'P1017',
  'P2024',
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; name?: string } | undefined;
  if (UNAVAILABLE_CODES.has(e?.code ?? '')) return true;
  // Prisma's driver adapters wrap lost connections in a DriverAdapterError.
  if (e?.name === 'DriverAdapterError' && /connect|terminat/i.test(e.message ?? '')) return true;
  // node-postgres reports some lost connections without a code.
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
    e?.message ?? '',
  );
}

export function isTransientDbError(err: unknown): boolean {
  return CONFLICT_CODES.has((err as { code?: string } | undefined)?.code ?? '') || isDatabaseUnavailable(err);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` until it succeeds, it fails with a non-transient error (rethrown as is), or the
 * attempts are used up (UnavailableError). `attempt` is 0 on the first call, so work can
 * reconcile after an attempt whose commit outcome is unknown.
 */
export async function withDbRetry<T>(
  work: (attempt: number) => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      if (attempt + 1 >= policy.attempts) throw new UnavailableError('Database unavailable, retry shortly', 1);
      // Full jitter keeps several waiting writers from retrying in lockstep.
      const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      await sleep(cap / 2 + Math.random() * (cap / 2));
    }
  }
}
