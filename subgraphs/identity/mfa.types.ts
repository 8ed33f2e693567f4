// Multi-factor sign-in's records and the store interfaces its services depend on (the rest of
// identity's are in identity.types.ts). Tenant-data reads take the tenant id first.

/** Factor kinds (factor.registry.ts). */
export type FactorKind = 'totp' | 'webauthn';

export interface MfaFactorRecord {
  id: string;
  tenantId: string;
  userId: string;
  kind: FactorKind;
  label: string | null;
  /** Sealed with the MFA key (secret.box.ts); never leaves identity unsealed except once at enrolment. */
  secret: string;
  confirmedAt: Date | null;
  /** The last accepted TOTP time step: that step and earlier ones are refused. */
  lastUsedStep: number | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export interface MfaFactorStore {
  create(
    tenantId: string,
    factor: { userId: string; kind: FactorKind; label: string | null; secret: string },
  ): Promise<MfaFactorRecord>;
  /** Confirmed and pending factors of one user, oldest first. */
  listForUser(tenantId: string, userId: string): Promise<MfaFactorRecord[]>;
  /** Marks a pending factor confirmed with the step of its first code; false if it was not pending. */
  confirm(tenantId: string, factorId: string, step: number, at: Date): Promise<boolean>;
  /**
   * Records an accepted code's step if it is later than the last one (a conditional update, so of
   * two concurrent uses of one code exactly one wins); false means the code was already used.
   */
  recordUse(tenantId: string, factorId: string, step: number, at: Date): Promise<boolean>;
  /** Removes one factor of the user; the number removed (0 or 1). */
  remove(tenantId: string, userId: string, factorId: string): Promise<number>;
  /** Records when a factor without time steps (WebAuthn) last signed someone in. */
  touch(tenantId: string, factorId: string, at: Date): Promise<void>;
  /** Renames one factor of the user; false when there is no such factor. */
  rename(tenantId: string, userId: string, factorId: string, label: string | null): Promise<boolean>;
  removePending(tenantId: string, userId: string, kind: FactorKind): Promise<number>;
  removeAllForUser(tenantId: string, userId: string): Promise<number>;
}

export interface RecoveryCodeStore {
  /** Replaces the user's codes with these hashes. */
  replace(tenantId: string, userId: string, codeHashes: readonly string[]): Promise<void>;
  /** Marks an unused code used; false when there is no such unused code. */
  consume(tenantId: string, userId: string, codeHash: string, at: Date): Promise<boolean>;
  countUnused(tenantId: string, userId: string): Promise<number>;
  removeAllForUser(tenantId: string, userId: string): Promise<number>;
}

/** `verify`: a second factor is owed; `enrol`: the policy demands one and the user has none yet. */
export type ChallengePurpose = 'verify' | 'enrol';

export interface MfaChallengeRecord {
  id: string;
  tenantId: string;
  userId: string;
  purpose: ChallengePurpose;
  /** Methods already proved (['pwd']). */
  amr: string[];
  attempts: number;
  expiresAt: Date;
  consumedAt: Date | null;
}

export interface MfaChallengeStore {
  create(challenge: {
    tenantId: string;
    userId: string;
    tokenHash: string;
    purpose: ChallengePurpose;
    amr: string[];
    expiresAt: Date;
  }): Promise<MfaChallengeRecord>;
  /** Holding the challenge token is what scopes this read (like a refresh token). */
  findByHash(tokenHash: string): Promise<MfaChallengeRecord | null>;
  /** Counts a failed attempt; the new count. */
  recordAttempt(id: string): Promise<number>;
  /** Uses the challenge up if it still was unused; false when someone got there first. */
  consume(id: string, at: Date): Promise<boolean>;
}

export interface MfaPolicyRecord {
  tenantId: string;
  requiredRoles: string[];
  updatedAt: Date;
  updatedBy: string | null;
}

export interface MfaPolicyStore {
  get(tenantId: string): Promise<MfaPolicyRecord | null>;
  set(tenantId: string, requiredRoles: readonly string[], updatedBy: string): Promise<MfaPolicyRecord>;
}

/** A sign-in session: one refresh-token family. */
export interface SessionRecord {
  id: string;
  userId: string;
  /** When the family's first token was issued (the login). */
  createdAt: Date;
  /** When its latest token was issued (the last refresh). */
  lastUsedAt: Date;
  expiresAt: Date;
  amr: string[];
}
