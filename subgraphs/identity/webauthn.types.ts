// WebAuthn's records and the store interfaces its services depend on. Tenant-data reads take the
// tenant id first; a credential is found only among one user's own.

export type WebauthnCeremony = 'registration' | 'authentication';

export interface WebauthnCredentialRecord {
  id: string;
  tenantId: string;
  userId: string;
  /** The mfa_factors row (kind `webauthn`) this credential belongs to. */
  factorId: string;
  /** base64url, as the authenticator reports it. */
  credentialId: string;
  /** COSE public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  signCount: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  createdAt: Date;
}

export interface WebauthnCredentialStore {
  create(
    tenantId: string,
    credential: Omit<WebauthnCredentialRecord, 'id' | 'tenantId' | 'createdAt'>,
  ): Promise<WebauthnCredentialRecord>;
  listForUser(tenantId: string, userId: string): Promise<WebauthnCredentialRecord[]>;
  /** Whether any user of the tenant holds this credential id (one authenticator, one account). */
  exists(tenantId: string, credentialId: string): Promise<boolean>;
  /**
   * Records an assertion's counter when it moved forward, or stayed 0 on an authenticator without
   * one: a conditional update, so of two concurrent uses of one counter value exactly one wins.
   */
  recordSignCount(tenantId: string, id: string, signCount: number): Promise<boolean>;
}

export interface WebauthnChallengeRecord {
  id: string;
  tenantId: string;
  userId: string;
  ceremony: WebauthnCeremony;
  expiresAt: Date;
  consumedAt: Date | null;
}

export interface WebauthnChallengeStore {
  create(challenge: {
    tenantId: string;
    userId: string;
    challengeHash: string;
    ceremony: WebauthnCeremony;
    expiresAt: Date;
  }): Promise<WebauthnChallengeRecord>;
  /**
   * Uses up the user's live challenge with this hash for this ceremony: the record when it was
   * unused and unexpired, null otherwise (unknown, another user's, used, expired).
   */
  take(
    tenantId: string,
    userId: string,
    challengeHash: string,
    ceremony: WebauthnCeremony,
    at: Date,
  ): Promise<WebauthnChallengeRecord | null>;
}
