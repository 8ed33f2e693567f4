// Factor secrets at rest: AES-256-GCM under the identity MFA key (IDENTITY_MFA_KEY, or derived
// from JWT_SECRET_KEY as the AI broker's PII vault derives its key). The factor's owner
// (tenant and user) is the additional authenticated data, so a sealed secret copied into another
// user's row does not open. Recovery codes are hashed with an HMAC under a key derived from the
// same secret: a database dump alone cannot test guesses.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  private readonly sealKey: Buffer;
  private readonly hashKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the MFA key must be 32 bytes');
    this.sealKey = createHmac('sha256', key).update('identity-mfa:seal').digest();
    this.hashKey = createHmac('sha256', key).update('identity-mfa:recovery-codes').digest();
  }

  seal(plain: string, owner: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(owner, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Throws when the text was not sealed under this key for this owner. */
  open(sealed: string, owner: string): string {
    if (!sealed.startsWith(`${VERSION}:`)) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(owner, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** Keyed hash of a recovery code (normalised first: case and dashes do not matter). */
  hashCode(code: string, owner: string): string {
    return createHmac('sha256', this.hashKey)
      .update(`${owner}\u0000${normaliseCode(code)}`)
      .digest('hex');
  }
}

export function normaliseCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

/** The owner string sealed secrets and code hashes are bound to. */
export function ownerOf(tenantId: string, userId: string): string {
  return `${tenantId}\u0000${userId}`;
}
