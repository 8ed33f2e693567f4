// The provider's asymmetric signing keys, stored in oidc_signing_keys with the private half sealed
// by the secret box. Rotation with overlap: a new key is published at once but signs only from
// `activatesAt` (now + the publish delay), so verifiers that cache the JWKS meet it before any
// token signed by it; the key it replaces keeps being published until the last token it signed
// has expired. An emergency rotation (a leaked key) signs with the new key at once and drops
// every other key from the JWKS immediately: their tokens stop verifying.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import type { AsymmetricAlgorithm } from '../../../platform/auth/asymmetric-tokens';
import type { SecretBox } from '../secret.box';
import type { SigningKeyRecord, SigningKeyStore } from './oidc.types';

export interface KeySettings {
  alg: AsymmetricAlgorithm;
  /** Seconds between a key's publication and its first signature. */
  publishSeconds: number;
  /** The longest life of anything a key signs (access and ID tokens): how long a retired key stays published. */
  tokenLifetimeSeconds: number;
}

/** The key set as the provider needs it: private JWKs, the signing one first (oidc-provider signs with the first of an alg). */
export interface ProviderKeys {
  signingKid: string;
  alg: string;
  privateJwks: JWK[];
  publicJwks: JWK[];
  /** Changes whenever the set or the signing key changes (the provider is rebuilt then). */
  fingerprint: string;
}

const KEY_OWNER = 'oidc-signing-key';

export class SigningKeys {
  constructor(
    private readonly store: SigningKeyStore,
    private readonly box: SecretBox,
    private readonly settings: KeySettings,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The live keys, creating the first one (signing at once) when there is none. */
  async current(): Promise<ProviderKeys> {
    const now = this.now();
    let live = await this.store.listLive(now);
    if (!live.some((k) => k.activatesAt <= now)) {
      await this.create(now);
      live = await this.store.listLive(now);
    }
    return this.providerKeys(live, now);
  }

  /** A new key; `immediate` for a compromised key (signs now, all others unpublished now). */
  async rotate(options: { immediate: boolean }): Promise<{ kid: string; activatesAt: Date; alg: string }> {
    const now = this.now();
    const activatesAt = options.immediate ? now : new Date(now.getTime() + this.settings.publishSeconds * 1000);
    const kid = await this.create(activatesAt);
    // The replaced key signs until the new one activates, and is published while its tokens live.
    const expiresAt = options.immediate
      ? now
      : new Date(activatesAt.getTime() + this.settings.tokenLifetimeSeconds * 1000);
    await this.store.retireOthers(kid, activatesAt, expiresAt);
    return { kid, activatesAt, alg: this.settings.alg };
  }

  private async create(activatesAt: Date): Promise<string> {
    const kid = randomUUID();
    const { publicKey, privateKey } =
      this.settings.alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
    const meta = { kid, alg: this.settings.alg, use: 'sig' };
    const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as JWK), ...meta };
    const privateJwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), ...meta };
    await this.store.create({
      kid,
      alg: this.settings.alg,
      publicJwk,
      sealedPrivate: this.box.seal(JSON.stringify(privateJwk), KEY_OWNER),
      activatesAt,
    });
    return kid;
  }

  private providerKeys(live: SigningKeyRecord[], now: Date): ProviderKeys {
    // Newest active key signs; pending ones (not yet active) and retired ones are published only.
    const signing = live.find((k) => k.activatesAt <= now)!;
    const ordered = [signing, ...live.filter((k) => k !== signing)];
    return {
      signingKid: signing.kid,
      alg: signing.alg,
      privateJwks: ordered.map((k) => JSON.parse(this.box.open(k.sealedPrivate, KEY_OWNER)) as JWK),
      publicJwks: ordered.map((k) => k.publicJwk),
      fingerprint: ordered.map((k) => k.kid).join(','),
    };
  }
}
