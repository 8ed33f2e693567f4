// The key promotions are signed with (Ed25519): CONFIG_SIGNING_KEY when set, else one generated
// at first start and kept in config_signing_keys, so every replica and restart signs with the same
// key. Every key ever used stays in the JWKS (/.well-known/config-keys.json): older changes verify.
import crypto, { type KeyObject } from 'node:crypto';
import type { SqlQuery } from '../../platform/db/sql';
import { publicJwkOf, signStatement, type ChangeStatement } from './config-signature';
import { createConfigStore } from './config.store';

export class ConfigSigner {
  private key?: { kid: string; privateKey: KeyObject };

  constructor(
    private readonly q: SqlQuery,
    private readonly configuredPem?: string,
  ) {}

  async ensureKey(): Promise<void> {
    const store = createConfigStore(this.q);
    if (this.configuredPem) {
      const privateKey = crypto.createPrivateKey(this.configuredPem);
      const jwk = publicJwkOf(privateKey);
      await store.insertSigningKey(jwk.kid, this.configuredPem, { ...jwk });
      this.key = { kid: jwk.kid, privateKey };
      return;
    }
    let stored = await store.signingKey();
    if (!stored) {
      const { privateKey } = crypto.generateKeyPairSync('ed25519');
      const jwk = publicJwkOf(privateKey);
      await store.insertSigningKey(jwk.kid, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { ...jwk });
      stored = await store.signingKey();
    }
    this.key = { kid: stored!.kid, privateKey: crypto.createPrivateKey(stored!.privatePem) };
  }

  sign(statement: ChangeStatement): { signature: string; keyId: string } {
    if (!this.key) throw new Error('config signing key not loaded (ensureKey)');
    return { signature: signStatement(statement, this.key.privateKey), keyId: this.key.kid };
  }

  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    return { keys: await createConfigStore(this.q).publicKeys() };
  }
}
