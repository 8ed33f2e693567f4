// A software WebAuthn authenticator for tests: it speaks the real wire format (CBOR attestation
// objects with format `none`, authenticator data with the RP id hash, flags and signature counter,
// ES256 signatures over authenticatorData || SHA-256(clientDataJSON)) with node:crypto P-256 keys,
// and plays the browser's part too (clientDataJSON with type, challenge and origin). It stands in
// for the security key, never for the server: identity verifies its output with
// @simplewebauthn/server as it would a browser's.
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** The part of the creation options (PublicKeyCredentialCreationOptionsJSON) an authenticator reads. */
export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

/** The part of the request options (PublicKeyCredentialRequestOptionsJSON) an authenticator reads. */
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

interface Credential {
  id: string;
  privateKey: KeyObject;
  counter: number;
  rpId: string;
}

export interface Tamper {
  /** The origin the "browser" writes into clientDataJSON. */
  origin?: string;
  /** The RP id whose hash goes into authenticatorData. */
  rpId?: string;
  /** Sign with this counter (and remember it). */
  counter?: number;
  /** Present another credential's id with this one's signature. */
  credentialId?: string;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  /**
   * @param origin what the browser would write as the page's origin
   * @param synced a synced passkey (backup eligible and backed up) rather than a device-bound key
   */
  constructor(
    readonly origin: string,
    private readonly synced = false,
  ) {}

  /** navigator.credentials.create(): a RegistrationResponseJSON with attestation `none`. */
  create(options: CreationOptions, tamper: Tamper & { again?: boolean } = {}) {
    const rpId = tamper.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    // `again`: attest the credential this authenticator already holds (what excludeCredentials prevents).
    let credential = tamper.again ? this.credentials[0] : undefined;
    if (!credential) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      credential = { id: randomBytes(32).toString('base64url'), privateKey, counter: 0, rpId };
      this.credentials.push(credential);
    }
    const rawId = Buffer.from(credential.id, 'base64url');
    const jwk = createPublicKey(credential.privateKey).export({ format: 'jwk' });
    const coseKey = cbor(
      new Map<number, unknown>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([
      this.authDataHead(rpId, FLAG_AT, 0),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      rawId,
      coseKey,
    ]);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, tamper.origin);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON from the first allowed credential it holds. */
  get(options: RequestOptions, tamper: Tamper = {}) {
    const allowed = new Set((options.allowCredentials ?? []).map((c) => c.id));
    const credential = this.credentials.find((c) => allowed.size === 0 || allowed.has(c.id));
    if (!credential) throw new Error('no credential of this authenticator is allowed');
    credential.counter = tamper.counter ?? credential.counter + 1;
    const authData = this.authDataHead(tamper.rpId ?? options.rpId ?? credential.rpId, 0, credential.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, tamper.origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]),
      credential.privateKey,
    );
    const id = tamper.credentialId ?? credential.id;
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private authDataHead(rpId: string, extraFlags: number, counter: number): Buffer {
    const flags = FLAG_UP | FLAG_UV | extraFlags | (this.synced ? FLAG_BE | FLAG_BS : 0);
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }
}

/** A minimal CBOR encoder (RFC 8949): the integers, strings, byte strings and maps WebAuthn uses. */
function cbor(value: unknown): Buffer {
  if (typeof value === 'number') {
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cannot encode ${typeof value}`);
}

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}
