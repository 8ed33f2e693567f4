// The registry's Ed25519 signing keys. RULEPACK_SIGNING_KEY (PKCS8 PEM) is the signing key when
// set; otherwise one is generated at first start and kept in the database, so signatures survive
// restarts and every registry process signs with the same key. Every key ever used stays in the
// published key set: a consumer holding a pack signed before a rotation can still verify it.
import type { KeyObject } from 'node:crypto';
import { generateSigningKeyPem, parseSigningKeyPem, publicJwkOf, type PublicSigningJwk } from './pack-signature';
import type { SigningKeyStore } from './rulepack-registry.types';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

export class SigningKeys {
  private readonly configured?: SigningKey;

  /** `configuredPem`: RULEPACK_SIGNING_KEY, already checked by the service's config. */
  constructor(
    private readonly store: SigningKeyStore,
    configuredPem?: string,
  ) {
    if (configuredPem) {
      const privateKey = parseSigningKeyPem(configuredPem);
      this.configured = { kid: publicJwkOf(privateKey).kid, privateKey };
    }
  }

  /** Makes sure an active key exists (at start; safe to run in several processes at once). */
  async ensureActive(): Promise<void> {
    if (this.configured) {
      const jwk = publicJwkOf(this.configured.privateKey);
      const active = await this.store.active();
      if (active?.kid !== jwk.kid) await this.store.activate({ kid: jwk.kid, publicKeyX: jwk.x, privateKeyPem: null });
      return;
    }
    const active = await this.store.active();
    if (active?.privateKeyPem) return;
    // None yet, or the active one was RULEPACK_SIGNING_KEY, which is no longer set: a new key,
    // the old one kept for verification.
    if (active) await this.store.retire(active.kid);
    const pem = generateSigningKeyPem();
    const jwk = publicJwkOf(parseSigningKeyPem(pem));
    await this.store.insertActiveIfNone({ kid: jwk.kid, publicKeyX: jwk.x, privateKeyPem: pem });
  }

  /** The key to sign with now (read each time: another process may have rotated it). */
  async current(): Promise<SigningKey> {
    if (this.configured) return this.configured;
    let active = await this.store.active();
    if (!active?.privateKeyPem) {
      await this.ensureActive();
      active = await this.store.active();
    }
    if (!active?.privateKeyPem) throw new Error('no rule-pack signing key available');
    return { kid: active.kid, privateKey: parseSigningKeyPem(active.privateKeyPem) };
  }

  /** Every key's public half, oldest first. */
  async keySet(): Promise<{ keys: PublicSigningJwk[] }> {
    const keys = await this.store.all();
    return {
      keys: keys.map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: k.publicKeyX, kid: k.kid, use: 'sig', alg: 'EdDSA' })),
    };
  }
}
