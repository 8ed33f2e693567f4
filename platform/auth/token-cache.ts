// A small bounded cache of verified tokens, shared by identity's /v1/auth/verify and the
// gateway. Entries live `ttlMs` at most and never past the token's own expiry, so a cached answer
// is never more permissive than verifying again; a least recently used entry is evicted first
// (Map keeps insertion order and a hit moves its entry to the end), which bounds memory under
// floods of distinct tokens. A hit on an entry among the newer half is not moved (the order is
// then least recently *moved*, a close approximation: such an entry is evicted only after every
// entry of the older half), because the move (delete + set) was a visible share of a cached
// verification's cost (issue 35). An evicted entry costs one verification again, never a wrong answer. Cached contexts are shared between requests, so they are frozen.
//
// Entries are found by a small number made from the token's last characters (the end of its
// signature, random for every token that ever verified) and then compared with the whole token,
// which is kept in the entry. A Map keyed by the token itself hashed all ~250 characters of a
// fresh string on every request (each request's header is a new string): ~0.35 µs a lookup
// against ~0.05 µs (issue 35). Two tokens with the same number share a slot: the newer one
// replaces the older, which is an eviction (one verification again), and a lookup answers only for
// the very token stored, so a collision can never answer for another token.
//
// A token not yet cached is verified once however many requests bring it at the same moment
// (`authenticate`): the callers share the one verification in flight. A new token usually arrives
// on many connections at once (a client's pool, a refreshed service token, the benchmark's 50
// connections walking its tenants in step), and each miss was an HMAC through WebCrypto's thread
// pool: under issue 35's ledger load a fresh token was verified about as many times as there were
// connections, a quarter of the ledger's CPU in a short run. A shared verification answers every
// caller exactly what its own would have; a failure is shared only while it is in flight, never kept.
import type { AuthContext } from './auth-context';

interface Entry {
  /** The whole token: a slot's number only finds the candidate. */
  token: string;
  auth: AuthContext;
  expiresAt: number;
  /** The value of `moves` when the entry was last put at the end. */
  stamp: number;
}

/** A verification's outcome to cache: the caller's context and when its token expires (ms). */
export interface Verified {
  auth: AuthContext;
  expiresAtMs: number;
}

export class TokenCache {
  private readonly entries = new Map<number, Entry>();
  /** Verifications in flight, by token; an entry lives only until its verification settles. */
  private readonly verifying = new Map<string, Promise<AuthContext>>();
  private moves = 0;

  /** `ttlMs` may be Infinity (the token's expiry alone bounds an entry); `maxEntries` 0 turns caching off. */
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(token: string): AuthContext | undefined {
    const slot = slotOf(token);
    const entry = this.entries.get(slot);
    if (!entry || entry.token !== token) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(slot);
      return undefined;
    }
    if (this.moves - entry.stamp >= this.maxEntries / 2) {
      this.entries.delete(slot);
      entry.stamp = ++this.moves;
      this.entries.set(slot, entry);
    }
    return entry.auth;
  }

  /**
   * The cached context, else the outcome of `verify`, run once for all the callers that ask for
   * this token while it is in flight; a verified context is cached as `set` does.
   */
  authenticate(token: string, verify: () => Promise<Verified>): Promise<AuthContext> {
    const hit = this.get(token);
    if (hit) return Promise.resolve(hit);
    let running = this.verifying.get(token);
    if (!running) {
      let started: Promise<Verified>;
      try {
        started = verify();
      } catch (err) {
        return Promise.reject(err); // a verifier that throws at once fails like one that rejects
      }
      running = started
        .then(({ auth, expiresAtMs }) => this.set(token, auth, expiresAtMs))
        .finally(() => this.verifying.delete(token));
      this.verifying.set(token, running);
    }
    return running;
  }

  /** Stores a verified context; returns the frozen context callers should use. */
  set(token: string, auth: AuthContext, tokenExpiresAtMs: number): AuthContext {
    const frozen = freeze(auth);
    if (this.ttlMs <= 0 || this.maxEntries <= 0) return frozen;
    const expiresAt = Math.min(this.now() + this.ttlMs, tokenExpiresAtMs);
    if (expiresAt <= this.now()) return frozen;
    const slot = slotOf(token);
    this.entries.delete(slot);
    this.entries.set(slot, { token, auth: frozen, expiresAt, stamp: ++this.moves });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as number);
    return frozen;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** How many of a token's last characters make its slot number. */
const SLOT_CHARACTERS = 8;

/** A token's slot: its length and last characters mixed into a non-negative small integer. */
export function slotOf(token: string): number {
  const end = token.length;
  let slot = end;
  for (let i = Math.max(0, end - SLOT_CHARACTERS); i < end; i++) slot = (Math.imul(slot, 31) + token.charCodeAt(i)) | 0;
  return slot & 0x3fffffff;
}

function freeze(auth: AuthContext): AuthContext {
  Object.freeze(auth.roles);
  Object.freeze(auth.scopes);
  return Object.freeze(auth);
}
