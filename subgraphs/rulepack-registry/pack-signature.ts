// What a certified pack's signature is, in one pure module so the registry, its tests and any
// consumer (the validation service) agree byte for byte:
//   bytes     = UTF-8 of the RFC 8785 canonical JSON of `pack` (the `canonicalize` library)
//   sha256    = SHA-256 hex of bytes
//   signature = Ed25519 over bytes, base64url without padding
//   key_id    = the RFC 7638 JWK thumbprint (SHA-256, base64url) of the public key
import crypto, { type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

/** One published signing key, as `/.well-known/rulepack-keys.json` lists it. */
export interface PublicSigningJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

/** The canonical bytes of a pack: what is hashed and signed. Throws on values JSON cannot carry. */
export function canonicalPackBytes(pack: unknown): Buffer {
  const text = canonicalize(pack);
  if (text === undefined) throw new Error('pack is not serialisable as JSON');
  return Buffer.from(text, 'utf8');
}

export function packSha256(pack: unknown): string {
  return crypto.createHash('sha256').update(canonicalPackBytes(pack)).digest('hex');
}

export function signPack(pack: unknown, privateKey: KeyObject): string {
  return crypto.sign(null, canonicalPackBytes(pack), privateKey).toString('base64url');
}

/** Whether `signature` is the Ed25519 signature of this pack under `publicKey` (a key or its JWK). */
export function verifyPack(
  pack: unknown,
  signature: string,
  publicKey: KeyObject | Pick<PublicSigningJwk, 'kty' | 'crv' | 'x'>,
): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(signature)) return false;
  try {
    const key =
      publicKey instanceof crypto.KeyObject
        ? publicKey
        : crypto.createPublicKey({ key: { kty: publicKey.kty, crv: publicKey.crv, x: publicKey.x }, format: 'jwk' });
    return crypto.verify(null, canonicalPackBytes(pack), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

/** RFC 7638 thumbprint of an Ed25519 public key given by its `x`. */
export function keyIdOf(x: string): string {
  // Members in lexicographic order, no whitespace, as RFC 7638 section 3.2 requires.
  const members = JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x });
  return crypto.createHash('sha256').update(members).digest('base64url');
}

/** The public JWK of an Ed25519 key (private or public KeyObject). */
export function publicJwkOf(key: KeyObject): PublicSigningJwk {
  const publicKey = key.type === 'private' ? crypto.createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`expected an Ed25519 key, got ${publicKey.asymmetricKeyType}`);
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  return { kty: 'OKP', crv: 'Ed25519', x, kid: keyIdOf(x), use: 'sig', alg: 'EdDSA' };
}

/** A fresh Ed25519 private key as PKCS8 PEM (what RULEPACK_SIGNING_KEY holds). */
export function generateSigningKeyPem(): string {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** Parses a PKCS8 PEM Ed25519 private key; throws with a message naming the problem. */
export function parseSigningKeyPem(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = crypto.createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new Error(`not a PKCS8 PEM private key (${(err as Error).message})`, { cause: err });
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 key, got ${key.asymmetricKeyType}`);
  return key;
}
