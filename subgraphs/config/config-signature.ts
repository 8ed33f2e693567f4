// What a promotion's signature covers, in one pure module so the service, its tests and any
// consumer verifying a change (the scanner, a client) agree byte for byte:
//   statement = {bundle_id, sha256, layer, scope, namespace, version, percentage, hash_by, kind, actor, approved_by}
//   bytes     = UTF-8 of its RFC 8785 canonical JSON
//   signature = Ed25519 over bytes, base64url without padding; key_id = RFC 7638 thumbprint
// The public keys are served as a JWKS at /.well-known/config-keys.json.
import crypto, { type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

export interface ChangeStatement {
  bundle_id: string;
  sha256: string;
  layer: string;
  scope: string;
  namespace: string;
  version: number;
  percentage: number;
  hash_by: string;
  kind: string;
  actor: string;
  approved_by: string | null;
}

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
}

const bytesOf = (statement: ChangeStatement) => Buffer.from(canonicalize(statement)!, 'utf8');

export function signStatement(statement: ChangeStatement, key: KeyObject): string {
  return crypto.sign(null, bytesOf(statement), key).toString('base64url');
}

export function verifyStatement(statement: ChangeStatement, signature: string, jwk: Pick<PublicJwk, 'x'>): boolean {
  try {
    const key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    return crypto.verify(null, bytesOf(statement), key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

export function publicJwkOf(key: KeyObject): PublicJwk {
  const { x } = crypto.createPublicKey(key).export({ format: 'jwk' }) as { x: string };
  // RFC 7638: the required members in lexicographic order, no whitespace.
  const kid = crypto
    .createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
  return { kty: 'OKP', crv: 'Ed25519', x, kid, use: 'sig', alg: 'EdDSA' };
}
