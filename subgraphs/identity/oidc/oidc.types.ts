// The OIDC provider's records and the store interfaces its services depend on (Prisma stores in
// this folder; strict fakes possible in unit tests).
import type { JWK } from 'jose';

export interface OidcClientRecord {
  clientId: string;
  tenantId: string;
  name: string;
  redirectUris: string[];
  /** First-party clients (the platform's own console) get consent without a page. */
  firstParty: boolean;
  /** Confidential clients only; sealed with the secret box (owner: tenant + client id). */
  sealedSecret: string | null;
  createdBy: string;
  createdAt: Date;
}

export interface OidcClientStore {
  create(client: Omit<OidcClientRecord, 'createdAt'>): Promise<OidcClientRecord>;
  /** The provider's lookup by id alone: it learns the tenant from the client. */
  findById(clientId: string): Promise<OidcClientRecord | null>;
  list(tenantId: string): Promise<OidcClientRecord[]>;
}

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  publicJwk: JWK;
  sealedPrivate: string;
  createdAt: Date;
  activatesAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
}

export interface SigningKeyStore {
  /** Keys not yet expired at `now` (published), newest activation first. */
  listLive(now: Date): Promise<SigningKeyRecord[]>;
  create(key: Omit<SigningKeyRecord, 'createdAt' | 'retiredAt' | 'expiresAt'>): Promise<void>;
  /** Marks the live keys other than `keepKid` retired at `retiredAt` and gone at `expiresAt` (unless already earlier). */
  retireOthers(keepKid: string, retiredAt: Date, expiresAt: Date): Promise<number>;
}

export interface OidcPayloadRow {
  payload: Record<string, unknown>;
  expiresAt: Date | null;
  consumedAt: Date | null;
}

export interface OidcPayloadStore {
  upsert(
    model: string,
    id: string,
    row: {
      payload: Record<string, unknown>;
      tenantId: string | null;
      grantId: string | null;
      userCode: string | null;
      uid: string | null;
      expiresAt: Date | null;
    },
  ): Promise<void>;
  find(model: string, id: string): Promise<OidcPayloadRow | null>;
  findBy(model: string, field: 'uid' | 'userCode', value: string): Promise<OidcPayloadRow | null>;
  consume(model: string, id: string, at: Date): Promise<void>;
  destroy(model: string, id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
  /**
   * Deletes at most `limit` rows whose expiry is at or before `before` (rows without one stay);
   * rows another process is deleting are skipped. Returns how many went.
   */
  purgeExpired(before: Date, limit: number): Promise<number>;
}
