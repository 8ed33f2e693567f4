// Verifies a certified pack's Ed25519 signature before anything of it runs: the signature is over
// the canonical JSON bytes of `pack`, by the key the registry publishes under `key_id` in its JWK
// set (/.well-known/rulepack-keys.json). The key set is cached; an unknown key id fetches it again
// (key rotation), at most once per `refetchAfterMs`, so a forged key id cannot make every request
// hit the registry.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { RulePackKeySet } from '../../platform/clients/rulepack-registry.client';

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

export interface KeySetSource {
  signingKeys(): Promise<RulePackKeySet>;
}

export class PackSignatureVerifier {
  private keys: Map<string, KeyObject> | undefined;
  private fetchedAt = 0;
  private fetching: Promise<Map<string, KeyObject>> | undefined;

  constructor(
    private readonly source: KeySetSource,
    private readonly options: { ttlMs: number; refetchAfterMs?: number; now?: () => number },
  ) {}

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Drops the cached key set (a `rulepack.deprecated` event may follow a key revocation). */
  forget(): void {
    this.keys = undefined;
  }

  private load(): Promise<Map<string, KeyObject>> {
    this.fetching ??= this.source
      .signingKeys()
      .then((set) => {
        const keys = new Map<string, KeyObject>();
        for (const jwk of set?.keys ?? []) {
          // Only what the contract publishes: Ed25519 signature keys. Anything else is ignored, so a
          // key of another type can never be used to verify.
          if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.kid !== 'string')
            continue;
          if (jwk.use !== undefined && jwk.use !== 'sig') continue;
          try {
            keys.set(jwk.kid, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' }));
          } catch {
            // A malformed key is skipped: packs it signed fail verification as "unknown key".
          }
        }
        this.keys = keys;
        this.fetchedAt = this.now;
        return keys;
      })
      .finally(() => {
        this.fetching = undefined;
      });
    return this.fetching;
  }

  private async keyFor(kid: string): Promise<KeyObject | undefined> {
    const fresh = this.keys && this.now - this.fetchedAt < this.options.ttlMs;
    let keys = fresh ? this.keys! : await this.load();
    if (!keys.has(kid) && fresh && this.now - this.fetchedAt >= (this.options.refetchAfterMs ?? 5_000))
      keys = await this.load();
    return keys.get(kid);
  }

  /** Throws only when the key set cannot be fetched (registry unreachable). */
  async verify(canonical: Buffer, signature: string | null, keyId: string | null): Promise<SignatureVerdict> {
    if (!signature || !keyId) return { ok: false, reason: 'it carries no signature' };
    const key = await this.keyFor(keyId);
    if (!key) return { ok: false, reason: `its signing key '${keyId}' is not published by the registry` };
    if (!/^[A-Za-z0-9_-]+={0,2}$/.test(signature)) return { ok: false, reason: 'its signature is not base64url' };
    const bytes = Buffer.from(signature, 'base64url');
    if (bytes.length !== 64) return { ok: false, reason: 'its signature is not an Ed25519 signature' };
    return verify(null, canonical, key, bytes)
      ? { ok: true }
      : { ok: false, reason: 'its signature does not match its content' };
  }
}
