// Login throttling per tenant and username, with exponential backoff: a flood of wrong passwords
// against one account stops costing a password hash (and an audit event) per attempt, and other
// accounts' logins are unaffected. Failures are counted in a window; past the allowance each
// further failure doubles the lockout, up to a cap. A success clears the count.
export interface ThrottleState {
  failures: number;
  /** Epoch ms until which attempts are refused without checking the password; 0 when open. */
  lockedUntil: number;
}

/** Where the counts live: process memory, or Redis when several identity processes share them. */
export interface ThrottleStore {
  get(key: string): Promise<ThrottleState | undefined>;
  set(key: string, state: ThrottleState, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface ThrottleSettings {
  /** Failures allowed in the window before the first lockout. */
  allowed: number;
  windowMs: number;
  /** First lockout; each further failure doubles it. */
  baseLockMs: number;
  maxLockMs: number;
}

export const DEFAULT_THROTTLE: ThrottleSettings = {
  allowed: 5,
  windowMs: 15 * 60_000,
  baseLockMs: 1_000,
  maxLockMs: 15 * 60_000,
};

export class LoginThrottle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly settings: ThrottleSettings = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  static key(tenantId: string, username: string): string {
    return `${tenantId}\u0001${username.toLowerCase()}`;
  }

  /** Seconds until the account may try again, or 0 when it may now. */
  async retryAfterSeconds(key: string): Promise<number> {
    const state = await this.store.get(key);
    const wait = (state?.lockedUntil ?? 0) - this.now();
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  /** Counts a failure; returns true when this failure starts (or extends) a lockout. */
  async recordFailure(key: string): Promise<boolean> {
    const state = (await this.store.get(key)) ?? { failures: 0, lockedUntil: 0 };
    const failures = state.failures + 1;
    const over = failures - this.settings.allowed;
    const lockedUntil =
      over > 0 ? this.now() + Math.min(this.settings.maxLockMs, this.settings.baseLockMs * 2 ** (over - 1)) : 0;
    await this.store.set(key, { failures, lockedUntil }, Math.max(this.settings.windowMs, lockedUntil - this.now()));
    return over > 0;
  }

  async recordSuccess(key: string): Promise<void> {
    await this.store.delete(key);
  }
}

/** Bounded process-memory store: the oldest entries go first once `maxEntries` is reached. */
export function memoryThrottleStore(maxEntries = 100_000, now: () => number = Date.now): ThrottleStore {
  const entries = new Map<string, { state: ThrottleState; expiresAt: number }>();
  return {
    async get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expiresAt <= now()) {
        entries.delete(key);
        return undefined;
      }
      return e.state;
    },
    async set(key, state, ttlMs) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { state, expiresAt: now() + ttlMs });
    },
    async delete(key) {
      entries.delete(key);
    },
  };
}
