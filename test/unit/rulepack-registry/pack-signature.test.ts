// The signature rules of a certified pack: canonical bytes, SHA-256, Ed25519, RFC 7638 key ids.
import crypto from 'node:crypto';
import {
  canonicalPackBytes,
  generateSigningKeyPem,
  keyIdOf,
  packSha256,
  parseSigningKeyPem,
  publicJwkOf,
  signPack,
  verifyPack,
} from '../../../subgraphs/rulepack-registry/pack-signature';

const pack = {
  metadata: { pack_id: 'kyc', version: '1.0.0' },
  rules: [{ rule_id: 'r1', type: 'FATAL', field: 'customer.id', operator: 'required', error_message: 'id required' }],
};

describe('pack signatures', () => {
  const privateKey = parseSigningKeyPem(generateSigningKeyPem());
  const jwk = publicJwkOf(privateKey);

  it('hashes and signs the RFC 8785 canonical bytes, so key order does not matter', () => {
    const reordered = {
      rules: [
        { error_message: 'id required', operator: 'required', field: 'customer.id', type: 'FATAL', rule_id: 'r1' },
      ],
      metadata: { version: '1.0.0', pack_id: 'kyc' },
    };
    expect(canonicalPackBytes(pack).toString()).toBe(canonicalPackBytes(reordered).toString());
    expect(canonicalPackBytes(pack).toString()).toBe(
      '{"metadata":{"pack_id":"kyc","version":"1.0.0"},"rules":[{"error_message":"id required","field":"customer.id","operator":"required","rule_id":"r1","type":"FATAL"}]}',
    );
    expect(packSha256(pack)).toBe(crypto.createHash('sha256').update(canonicalPackBytes(pack)).digest('hex'));
    const signature = signPack(pack, privateKey);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifyPack(reordered, signature, jwk)).toBe(true);
  });

  it('fails verification for a tampered pack, another key or a mangled signature', () => {
    const signature = signPack(pack, privateKey);
    expect(verifyPack(pack, signature, jwk)).toBe(true);
    const tampered = structuredClone(pack);
    tampered.rules[0]!.type = 'INFO';
    expect(verifyPack(tampered, signature, jwk)).toBe(false);
    const other = publicJwkOf(parseSigningKeyPem(generateSigningKeyPem()));
    expect(verifyPack(pack, signature, other)).toBe(false);
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expect(verifyPack(pack, flipped, jwk)).toBe(false);
    expect(verifyPack(pack, 'not base64url!', jwk)).toBe(false);
    expect(verifyPack(pack, '', jwk)).toBe(false);
  });

  it('verifies with the public KeyObject as well as the JWK', () => {
    const signature = signPack(pack, privateKey);
    expect(verifyPack(pack, signature, crypto.createPublicKey(privateKey))).toBe(true);
  });

  it('publishes an OKP JWK whose kid is the RFC 7638 thumbprint', () => {
    expect(jwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      kid: keyIdOf(jwk.x),
      use: 'sig',
      alg: 'EdDSA',
    });
    expect(jwk).not.toHaveProperty('d');
    // RFC 8037 appendix A.3's example key and thumbprint.
    expect(keyIdOf('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
  });

  it('refuses keys that are not Ed25519 private keys in PEM', () => {
    const rsa = crypto
      .generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(() => parseSigningKeyPem(rsa)).toThrow(/Ed25519/);
    expect(() => parseSigningKeyPem('not a pem')).toThrow(/PKCS8 PEM/);
  });
});
