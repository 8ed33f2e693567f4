// Standard Webhooks signatures. The signed content is `${webhook-id}.${webhook-timestamp}.${body}`;
// `v1,` is its HMAC-SHA256 under the endpoint's secret (computed by the `standardwebhooks`
// package, so it is exactly what receivers verify with it), `v1a,` its Ed25519 signature under the
// tenant's signing key, whose public half is published as a JWK Set. During a rotation's overlap
// the header carries one signature per live secret and key, space-separated, as the spec allows:
// a receiver holding either the old or the new secret verifies.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface Jwks {
  keys: PublicJwk[];
}

/** A new endpoint secret in the spec's printed form: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A new Ed25519 key: its PKCS#8 PEM and its kid (the RFC 7638 thumbprint of the public JWK). */
export function newSigningKey(): { kid: string; privateKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { kid: thumbprint(jwk.x!), privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

function thumbprint(x: string): string {
  // RFC 7638: the required members in lexicographic order, no whitespace.
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
}

export function publicJwk(kid: string, privateKeyPem: string): PublicJwk {
  const jwk = createPublicKey(createPrivateKey(privateKeyPem)).export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, kid, alg: 'EdDSA', use: 'sig' };
}

export interface SigningMaterial {
  /** Every live HMAC secret of the endpoint (the current one first). */
  secrets: string[];
  /** Every live Ed25519 key of the tenant (PKCS#8 PEM). */
  privateKeys: string[];
}

/** The `webhook-signature` header for one attempt. */
export function signatureHeader(material: SigningMaterial, id: string, timestamp: Date, body: string): string {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const content = Buffer.from(`${id}.${seconds}.${body}`);
  const v1 = material.secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body));
  const v1a = material.privateKeys.map((pem) => `v1a,${sign(null, content, createPrivateKey(pem)).toString('base64')}`);
  return [...v1, ...v1a].join(' ');
}
