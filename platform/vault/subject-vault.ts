// Crypto-shredding: each data subject of a tenant (a person the tenant holds PII about, named by
// the id the services know them by, e.g. a username) gets a random data key, stored wrapped under
// the master key (subject_keys). Services seal the subject's PII under that key; an erasure
// destroys the key, after which every copy of the ciphertext, in tables, backups and replicas
// alike, is unrecoverable, while rows, hashes and ledger chains stay as they were.
//
// A sealed value is `sv1:<key id>:<base64 iv|tag|ciphertext>` (AES-256-GCM, the tenant and key id
// as additional data, so a value copied into another tenant's row does not open). Subjects are
// named in audits and holds by their reference, an HMAC of tenant and subject under the master
// key, never by the id itself.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { SqlQuery } from '../db/sql';
import {
  destroySubjectKeys,
  insertSubjectKey,
  liveSubjectKey,
  subjectKeyCount,
  subjectKeysByIds,
} from './subject-key.store';

/** What an unrecoverable value reads back as. */
export const ERASED = '[erased]';

const PREFIX = 'sv1:';
const SEALED = /^sv1:([0-9a-f-]{36}):([A-Za-z0-9+/=]+)$/;

function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function decrypt(key: Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

export class SubjectVault {
  constructor(private readonly masterKey: Buffer) {}

  /** The subject's reference in the tenant: what audits, holds and erasure records name instead of the id. */
  subjectRef(tenantId: string, subjectId: string): string {
    return createHmac('sha256', this.masterKey).update(`subject\u0000${tenantId}\u0000${subjectId}`).digest('hex');
  }

  private wrap(tenantId: string, dataKey: Buffer): string {
    return encrypt(this.masterKey, dataKey, `wrap\u0000${tenantId}`);
  }

  private unwrap(tenantId: string, wrapped: string): Buffer {
    return decrypt(this.masterKey, wrapped, `wrap\u0000${tenantId}`);
  }

  /** The subject's live key (made on first use); run it in the transaction that stores the sealed value. */
  private async liveKey(q: SqlQuery, tenantId: string, subjectRef: string): Promise<{ id: string; key: Buffer }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const live = await liveSubjectKey(q, tenantId, subjectRef);
      if (live?.wrappedKey) return { id: live.id, key: this.unwrap(tenantId, live.wrappedKey) };
      await insertSubjectKey(q, tenantId, subjectRef, this.wrap(tenantId, randomBytes(32)));
    }
    throw new Error('subject key could not be created');
  }

  /** `plaintext` sealed under the subject's key. */
  async seal(q: SqlQuery, tenantId: string, subjectId: string, plaintext: string): Promise<string> {
    const { id, key } = await this.liveKey(q, tenantId, this.subjectRef(tenantId, subjectId));
    return `${PREFIX}${id}:${encrypt(key, Buffer.from(plaintext, 'utf8'), `${tenantId}\u0000${id}`)}`;
  }

  /**
   * The values opened, in order: a sealed value whose key was destroyed (or is not the tenant's)
   * reads as ERASED; a value that was never sealed is returned as it is.
   */
  async openMany(q: SqlQuery, tenantId: string, values: readonly string[]): Promise<string[]> {
    const ids = values.flatMap((v) => SEALED.exec(v)?.[1] ?? []);
    const keys = await subjectKeysByIds(q, tenantId, ids);
    const unwrapped = new Map<string, Buffer>();
    return values.map((v) => {
      if (!isSealed(v)) return v;
      const m = SEALED.exec(v);
      const row = m ? keys.get(m[1]!) : undefined;
      if (!m || !row?.wrappedKey) return ERASED;
      let key = unwrapped.get(row.id);
      if (!key) unwrapped.set(row.id, (key = this.unwrap(tenantId, row.wrappedKey)));
      try {
        return decrypt(key, m[2]!, `${tenantId}\u0000${row.id}`).toString('utf8');
      } catch {
        return ERASED;
      }
    });
  }

  async open(q: SqlQuery, tenantId: string, value: string): Promise<string> {
    return (await this.openMany(q, tenantId, [value]))[0]!;
  }

  /** Whether the tenant ever sealed anything for the subject (another tenant's subject: false). */
  async knows(q: SqlQuery, tenantId: string, subjectRef: string): Promise<boolean> {
    return (await subjectKeyCount(q, tenantId, subjectRef)) > 0;
  }

  /** Destroys the subject's keys in the tenant; how many were live. */
  destroy(q: SqlQuery, tenantId: string, subjectRef: string): Promise<number> {
    return destroySubjectKeys(q, tenantId, subjectRef);
  }
}
