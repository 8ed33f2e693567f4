// A small bounded cache of verified tokens. Entries live `ttlMs` at most and never past the
// token's own expiry, so a cached answer is never more permissive than verifying again; the
// oldest entry is evicted first (Map keeps insertion order), which bounds memory under floods
// of distinct tokens.
import type { AuthContext } from '../../platform/auth/auth-context';

interface Entry {
  auth: AuthContext;
  expiresAt: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly ttlMs: number, private readonly maxEntries: number, private readonly now: () => number = Date.now) {}

  get(token: string): AuthContext | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.auth;
  }

  set(token: string, auth: AuthContext, tokenExpiresAtMs: number): void {
    if (this.ttlMs <= 0) return;
    const expiresAt = Math.min(this.now() + this.ttlMs, tokenExpiresAtMs);
    if (expiresAt <= this.now()) return;
    this.entries.delete(token);
    this.entries.set(token, { auth, expiresAt });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
