// A small bounded cache of verified tokens, shared by identity's /v1/auth/verify and the
// gateway. Entries live `ttlMs` at most and never past the token's own expiry, so a cached answer
// is never more permissive than verifying again; a least recently used entry is evicted first
// (Map keeps insertion order and a hit moves its entry to the end), which bounds memory under
// floods of distinct tokens. A hit on an entry among the newer half is not moved (the order is
// then least recently *moved*, a close approximation: such an entry is evicted only after every
// entry of the older half), because the move (delete + set) was a visible share of a cached
// verification's cost (issue 35). An evicted entry costs one verification again, never a wrong answer. Cached contexts are shared between requests, so they are frozen.
import type { AuthContext } from './auth-context';

interface Entry {
  auth: AuthContext;
  expiresAt: number;
  /** The value of `moves` when the entry was last put at the end. */
  stamp: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private moves = 0;

  /** `ttlMs` may be Infinity (the token's expiry alone bounds an entry); `maxEntries` 0 turns caching off. */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): AuthContext | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(token);
      return undefined;
    }
    if (this.moves - entry.stamp >= this.maxEntries / 2) {
      this.entries.delete(token);
      entry.stamp = ++this.moves;
      this.entries.set(token, entry);
    }
    return entry.auth;
  }

  /** Stores a verified context; returns the frozen context callers should use. */
  set(token: string, auth: AuthContext, tokenExpiresAtMs: number): AuthContext {
    const frozen = freeze(auth);
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return frozen;
    const expiresAt = Math.min(this.now() + this.ttlMs, tokenExpiresAtMs);
    if (expiresAt <= this.now()) return frozen;
    this.entries.delete(token);
    this.entries.set(token, { auth: frozen, expiresAt, stamp: ++this.moves });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return frozen;
  }

  get size(): number {
    return this.entries.size;
  }
}

function freeze(auth: AuthContext): AuthContext {
  Object.freeze(auth.roles);
  Object.freeze(auth.scopes);
  return Object.freeze(auth);
}
