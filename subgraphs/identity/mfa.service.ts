// A person's second factors: TOTP enrolment (secret sealed at rest, confirmed by a first code),
// recovery codes (ten, hashed, shown once), listing and removal, an admin's reset of a user who
// lost their authenticator, and the check of a code at sign-in (a code's time step is recorded, so
// the same code, or an older one, is refused the second time).
import { hasSecondFactor } from '../../platform/auth/mfa';
import { MfaRequiredError } from '../../platform/auth/require-mfa';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { AuthenticationError, ConflictError, InputError, NotFoundError } from '../../platform/errors/domain-errors';
import { isUuid } from '../../platform/ids';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { readScopeOf, requireAdmin } from './access.policy';
import { FACTOR_KINDS, RECOVERY_CODE_METHOD, type SignInMethod } from './factor.registry';
import { IDENTITY_EVENTS } from './identity.audit';
import type { IdentityStores, IdentityUnitOfWork, UserRecord } from './identity.types';
import type { FactorKind, MfaFactorRecord } from './mfa.types';
import { newRecoveryCodes, RECOVERY_CODE } from './recovery-codes';
import { ownerOf, type SecretBox } from './secret.box';
import { newTotpSecret, TotpVerifier, totpUri } from './totp';
import { roleNamesOf } from './user.view';

export interface MfaServiceDeps {
  stores: IdentityUnitOfWork;
  box: SecretBox;
  /** The issuer shown in authenticator apps (otpauth:// URI). */
  issuer: string;
  access: TenantAccess;
  /** The roles the tenant's policy covers: their holders may not remove their last factor. */
  requiredRoles?: (s: IdentityStores, tenantId: string) => Promise<readonly string[]>;
  now?: () => Date;
}

export interface FactorView {
  id: string;
  kind: FactorKind;
  label: string | null;
  confirmed: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface TotpEnrolment {
  factorId: string;
  /** Base32, for typing into an app; shown only now. */
  secret: string;
  /** otpauth:// URI: what the QR code encodes. */
  uri: string;
}

export interface ConfirmedFactor {
  factor: FactorView;
  /** Ten fresh codes when the user had none left; null otherwise. Shown only now. */
  recoveryCodes: string[] | null;
}

export type CodeCheck =
  | { ok: true; method: SignInMethod; amr: string }
  | { ok: false; reason: 'bad_code' | 'code_reused' | 'malformed_code' };

const LABEL_MAX = 100;

export function factorView(f: MfaFactorRecord): FactorView {
  return {
    id: f.id,
    kind: f.kind,
    label: f.label,
    confirmed: f.confirmedAt !== null,
    createdAt: f.createdAt,
    lastUsedAt: f.lastUsedAt,
  };
}

export class MfaService {
  private readonly now: () => Date;

  constructor(private readonly deps: MfaServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The signed-in person behind a token, from the database (active, not a service account). */
  async self(caller: Caller): Promise<UserRecord> {
    const auth = requireAuth(caller);
    const [user] = await this.deps.stores.users.findByUsernames(auth.tenantId, [auth.username]);
    if (!user || !user.isActive || user.isService) throw new AuthenticationError();
    return user;
  }

  async listFactors(caller: Caller): Promise<{ factors: FactorView[]; recoveryCodesLeft: number }> {
    return this.factorsOf(await this.self(caller));
  }

  async factorsOf(user: UserRecord): Promise<{ factors: FactorView[]; recoveryCodesLeft: number }> {
    const { stores } = this.deps;
    const [factors, left] = await Promise.all([
      stores.mfaFactors.listForUser(user.tenantId, user.id),
      stores.recoveryCodes.countUnused(user.tenantId, user.id),
    ]);
    return { factors: factors.map(factorView), recoveryCodesLeft: left };
  }

  /** Confirmed factors of a user (the ones that can answer a challenge). */
  async confirmedFactors(s: IdentityStores, user: UserRecord): Promise<MfaFactorRecord[]> {
    return (await s.mfaFactors.listForUser(user.tenantId, user.id)).filter((f) => f.confirmedAt !== null);
  }

  /** Starts a TOTP enrolment: a pending factor whose first code confirms it. One TOTP factor per person. */
  async startTotp(user: UserRecord, label?: string | null): Promise<TotpEnrolment> {
    const name = label?.trim() || null;
    if (name !== null && name.length > LABEL_MAX)
      throw InputError.of(['label'], `String should have at most ${LABEL_MAX} characters`, 'string_too_long');
    return this.deps.stores.transaction(async (s) => {
      const existing = await s.mfaFactors.listForUser(user.tenantId, user.id);
      if (existing.some((f) => f.kind === 'totp' && f.confirmedAt !== null))
        throw new ConflictError('An authenticator is already enrolled; remove it before enrolling another');
      await s.mfaFactors.removePending(user.tenantId, user.id, 'totp');
      const secret = newTotpSecret();
      const factor = await s.mfaFactors.create(user.tenantId, {
        userId: user.id,
        kind: 'totp',
        label: name,
        secret: this.deps.box.seal(secret, ownerOf(user.tenantId, user.id)),
      });
      return { factorId: factor.id, secret, uri: totpUri(secret, this.deps.issuer, user.username) };
    });
  }

  /** Confirms a pending TOTP factor with its first code; the first factor comes with recovery codes. */
  async confirmTotp(
    caller: Caller,
    user: UserRecord,
    input: { factorId: string; code: string },
    s: IdentityStores,
  ): Promise<ConfirmedFactor> {
    const now = this.now();
    const factor = isUuid(input.factorId)
      ? (await s.mfaFactors.listForUser(user.tenantId, user.id)).find((f) => f.id === input.factorId)
      : undefined;
    if (!factor || factor.kind !== 'totp') throw new NotFoundError('Factor not found');
    if (factor.confirmedAt !== null) throw new ConflictError('Factor already confirmed');
    const step = this.totpOf(user, factor).match(input.code, now.getTime());
    if (step === null) throw InputError.of(['code'], 'The code does not match the authenticator', 'value_error');
    if (!(await s.mfaFactors.confirm(user.tenantId, factor.id, step, now)))
      throw new ConflictError('Factor already confirmed');
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.mfaFactorEnrolled,
        actor: user.username,
        data: { username: user.username, user_id: user.id, factor_id: factor.id, kind: factor.kind },
      }),
    );
    const left = await s.recoveryCodes.countUnused(user.tenantId, user.id);
    const recoveryCodes = left === 0 ? await this.replaceRecoveryCodes(s, caller, user) : null;
    return { factor: factorView({ ...factor, confirmedAt: now, lastUsedAt: now }), recoveryCodes };
  }

  /** Confirms with the caller's own token (the REST/GraphQL door for a signed-in person). */
  async confirmTotpForCaller(caller: Caller, input: { factorId: string; code: string }): Promise<ConfirmedFactor> {
    const user = await this.self(caller);
    return this.deps.stores.transaction((s) => this.confirmTotp(caller, user, input, s));
  }

  /**
   * Checks a code against the user's confirmed factors (TOTP) or recovery codes. A TOTP step
   * already used (or older than the last used one) is refused: a code works once.
   */
  async checkCode(
    s: IdentityStores,
    caller: Caller,
    user: UserRecord,
    method: SignInMethod,
    code: string,
  ): Promise<CodeCheck> {
    const now = this.now();
    if (method === RECOVERY_CODE_METHOD) {
      if (!RECOVERY_CODE.test(code.trim())) return { ok: false, reason: 'malformed_code' };
      const hash = this.deps.box.hashCode(code, ownerOf(user.tenantId, user.id));
      if (!(await s.recoveryCodes.consume(user.tenantId, user.id, hash, now))) return { ok: false, reason: 'bad_code' };
      const remaining = await s.recoveryCodes.countUnused(user.tenantId, user.id);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: user.tenantId,
          type: IDENTITY_EVENTS.recoveryCodeUsed,
          actor: user.username,
          data: { username: user.username, user_id: user.id, remaining },
        }),
      );
      return { ok: true, method, amr: FACTOR_KINDS.totp.amr };
    }
    if (method !== 'totp') return { ok: false, reason: 'bad_code' };
    if (!/^\s*\d{6}\s*$/.test(code)) return { ok: false, reason: 'malformed_code' };
    for (const factor of await this.confirmedFactors(s, user)) {
      if (factor.kind !== 'totp') continue;
      const step = this.totpOf(user, factor).match(code, now.getTime());
      if (step === null) continue;
      if (factor.lastUsedStep !== null && step <= factor.lastUsedStep) return { ok: false, reason: 'code_reused' };
      if (!(await s.mfaFactors.recordUse(user.tenantId, factor.id, step, now)))
        return { ok: false, reason: 'code_reused' };
      return { ok: true, method, amr: FACTOR_KINDS.totp.amr };
    }
    return { ok: false, reason: 'bad_code' };
  }

  /** Removes one of the caller's factors; needs a token from a sign-in with a second factor. */
  async removeFactor(caller: Caller, factorId: string): Promise<void> {
    const auth = requireAuth(caller);
    const user = await this.self(caller);
    if (!hasSecondFactor(auth.amr)) throw new MfaRequiredError('remove a second factor');
    if (!isUuid(factorId)) throw new NotFoundError('Factor not found');
    await this.deps.stores.transaction(async (s) => {
      const factors = await s.mfaFactors.listForUser(user.tenantId, user.id);
      const factor = factors.find((f) => f.id === factorId);
      if (!factor || (await s.mfaFactors.remove(user.tenantId, user.id, factorId)) === 0)
        throw new NotFoundError('Factor not found');
      // Recovery codes stand in for factors: with the last factor gone they go too.
      const confirmedLeft = factors.filter((f) => f.id !== factorId && f.confirmedAt !== null).length;
      if (confirmedLeft === 0 && factor.confirmedAt !== null && this.deps.requiredRoles) {
        const required = await this.deps.requiredRoles(s, user.tenantId);
        if (roleNamesOf(user).some((r) => required.includes(r)))
          throw new ConflictError('Your role requires a second factor: enrol another before removing the last one');
      }
      if (confirmedLeft === 0) await s.recoveryCodes.removeAllForUser(user.tenantId, user.id);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: user.tenantId,
          type: IDENTITY_EVENTS.mfaFactorRemoved,
          actor: auth.username,
          data: { username: user.username, user_id: user.id, factor_id: factor.id, kind: factor.kind },
        }),
      );
    });
  }

  /** Ten new recovery codes (the old ones stop working); needs a second-factor sign-in. */
  async regenerateRecoveryCodes(caller: Caller): Promise<string[]> {
    const auth = requireAuth(caller);
    const user = await this.self(caller);
    if (!hasSecondFactor(auth.amr)) throw new MfaRequiredError('generate new recovery codes');
    return this.deps.stores.transaction(async (s) => {
      if ((await this.confirmedFactors(s, user)).length === 0)
        throw new ConflictError('Enrol a second factor before generating recovery codes');
      return this.replaceRecoveryCodes(s, caller, user);
    });
  }

  /**
   * An admin's reset of a user who lost their authenticator: every factor and recovery code and
   * every session of the user go; the next sign-in enrols again (if the policy demands a factor).
   */
  async resetUser(caller: Caller, userId: string): Promise<{ factorsRemoved: number; sessionsRevoked: number }> {
    const auth = requireAdmin(caller);
    if (!isUuid(userId)) throw new NotFoundError('User not found');
    return this.deps.stores.transaction(async (s) => {
      const [user] = await s.users.findByIds(readScopeOf(auth), [userId]);
      if (!user) throw new NotFoundError('User not found');
      await this.deps.access.resolve(caller, user.tenantId, ['userId'], 'identity.users.resetMfa');
      this.deps.access.requireMfa(caller, "reset a user's second factors");
      const factorsRemoved = await s.mfaFactors.removeAllForUser(user.tenantId, user.id);
      await s.recoveryCodes.removeAllForUser(user.tenantId, user.id);
      const sessionsRevoked = await s.refreshTokens.revokeAllForUser(user.tenantId, user.id);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: user.tenantId,
          type: IDENTITY_EVENTS.mfaReset,
          actor: auth.username,
          data: {
            username: user.username,
            user_id: user.id,
            factors_removed: factorsRemoved,
            revoked_count: sessionsRevoked,
          },
        }),
      );
      return { factorsRemoved, sessionsRevoked };
    });
  }

  /** Ten new codes replacing the user's (also the first factor's codes, of any kind). */
  async replaceRecoveryCodes(s: IdentityStores, caller: Caller, user: UserRecord): Promise<string[]> {
    const codes = newRecoveryCodes();
    const owner = ownerOf(user.tenantId, user.id);
    await s.recoveryCodes.replace(
      user.tenantId,
      user.id,
      codes.map((c) => this.deps.box.hashCode(c, owner)),
    );
    await s.outbox.append(
      auditEvent(caller, {
        tenantId: user.tenantId,
        type: IDENTITY_EVENTS.recoveryCodesGenerated,
        actor: user.username,
        data: { username: user.username, user_id: user.id, count: codes.length },
      }),
    );
    return codes;
  }

  private totpOf(user: UserRecord, factor: MfaFactorRecord): TotpVerifier {
    return new TotpVerifier(this.deps.box.open(factor.secret, ownerOf(user.tenantId, user.id)));
  }
}
