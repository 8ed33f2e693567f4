// The serialised answers of `GET /api/config/{tenant_id}/effective`, kept per current answer
// (tenant, seq and the service's view of what is in force, with suite, module, user and
// namespace: EffectiveService.servedKey) in a small LRU, so a repeated read costs neither the
// merge nor JSON.stringify of the configuration and its provenance, and carries a strong ETag.
// A change moves the view on: later reads get new keys, and the previous view's bodies are
// dropped at once rather than left to age out. `as_of` and resolved-secret answers are never
// kept (a resolved secret must not stay in memory beyond its request).
import { createHash } from 'node:crypto';
import { LruMap } from '../../platform/clients/lru-map';
import type { ServedKey } from '../../subgraphs/config/effective.service';

export interface SerialisedBody {
  text: string;
  etag: string;
}

export class EffectiveBodies {
  private readonly bodies: LruMap<string, SerialisedBody> | null;
  private view = -1;

  /** `maxEntries` 0 keeps nothing (every read serialises). */
  constructor(maxEntries: number) {
    this.bodies = maxEntries > 0 ? new LruMap(maxEntries) : null;
  }

  get size(): number {
    return this.bodies?.size ?? 0;
  }

  /** The body for `served` (made by `serialise` on a miss), or a fresh one when nothing may be kept. */
  body(served: ServedKey | undefined, serialise: () => unknown): SerialisedBody {
    if (!served || !this.bodies) return this.make(serialise);
    if (served.view !== this.view) {
      // An answer of an older view can still be in flight: it is served, never kept.
      if (served.view < this.view) return this.make(serialise);
      for (const key of this.bodies.keys()) this.bodies.delete(key);
      this.view = served.view;
    }
    const hit = this.bodies.get(served.key);
    if (hit) return hit;
    const made = this.make(serialise);
    this.bodies.set(served.key, made);
    return made;
  }

  private make(serialise: () => unknown): SerialisedBody {
    const text = JSON.stringify(serialise());
    return { text, etag: `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"` };
  }
}
