// The console's session: the access token lives in this module's memory only (never in storage a
// script could read later); the refresh token is an httpOnly cookie the page never sees, used by
// the router's /console/session routes. The token is refreshed before it expires, and on load (a
// reload keeps the person signed in without keeping a token in the page). Refreshes across tabs
// are serialised with a Web Lock: identity rotates refresh tokens and treats a reused one as
// theft, so two tabs must never present the same cookie at once.
//
// A sign-in through the OIDC provider (provider.ts) holds its refresh token in this module's
// memory instead (the provider issued it to the page, not to the router): refreshes go to the
// provider's token endpoint, sign-out revokes it there. Such a session is the tab's own, so no
// lock is needed, and it does not survive a reload: the provider's session brings the person
// back in one step (docs/console.md).
import { claimsOf, type Claims } from './claims';
import { refreshWithProvider, revokeAtProvider, type ProviderTokens } from './provider';

export interface Session {
  accessToken: string;
  expiresAt: number;
  claims: Claims;
  /** How the person signed in: the password form (legacy, via the router) or the OIDC provider. */
  via: 'password' | 'provider';
}

/** A right password that still owes a second factor: answer with verifyMfa (or enrol first). */
export interface MfaChallenge {
  /** `mfa_required` or `mfa_enrolment_required`. */
  error: string;
  mfaToken: string;
  factors: string[];
  expiresIn: number;
}

export class SessionError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly challenge?: MfaChallenge,
  ) {
    super(message);
  }
}

type Listener = (session: Session | null) => void;

const SESSION_URL = '/console/session';
let current: Session | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let refreshAt = 0;
let inFlight: Promise<Session | null> | undefined;
/** The provider's refresh token, for a provider session only (never stored). */
let providerRefresh: string | undefined;
const listeners = new Set<Listener>();

export const currentSession = () => current;
export const accessToken = () => current?.accessToken;

export function onSession(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Refresh halfway through a short token's life, a minute before a long one ends. */
export function refreshDelayMs(expiresInSeconds: number): number {
  const life = expiresInSeconds * 1000;
  return Math.max(1000, life - Math.min(60_000, life / 2));
}

function set(session: Session | null): void {
  current = session;
  clearTimeout(timer);
  if (session) {
    const delay = refreshDelayMs((session.expiresAt - Date.now()) / 1000);
    refreshAt = Date.now() + delay;
    timer = setTimeout(() => void refresh(), delay);
  }
  for (const l of listeners) l(session);
}

async function detailOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    if (Array.isArray(body.detail)) return body.detail.map((d: { msg?: string }) => d.msg ?? '').join('; ');
  } catch {
    // not JSON: fall through
  }
  return `HTTP ${res.status}`;
}

function challengeOf(body: unknown): MfaChallenge | undefined {
  const b = body as Partial<MfaChallenge> | null;
  return b && typeof b.mfaToken === 'string' && typeof b.error === 'string'
    ? { error: b.error, mfaToken: b.mfaToken, factors: b.factors ?? [], expiresIn: b.expiresIn ?? 0 }
    : undefined;
}

async function accept(res: Response): Promise<Session> {
  if (res.status === 401) {
    const body: unknown = await res.json().catch(() => null);
    const detail = (body as { detail?: unknown } | null)?.detail;
    throw new SessionError(typeof detail === 'string' ? detail : 'HTTP 401', 401, challengeOf(body));
  }
  if (!res.ok) throw new SessionError(await detailOf(res), res.status);
  const body = (await res.json()) as { accessToken: string; expiresIn: number };
  const session: Session = {
    accessToken: body.accessToken,
    expiresAt: Date.now() + body.expiresIn * 1000,
    claims: claimsOf(body.accessToken),
    via: 'password',
  };
  providerRefresh = undefined;
  set(session);
  return session;
}

/** Adopts the tokens of a provider sign-in (or refresh). */
export function adoptProviderTokens(tokens: ProviderTokens): Session {
  const session: Session = {
    accessToken: tokens.accessToken,
    expiresAt: Date.now() + tokens.expiresIn * 1000,
    claims: claimsOf(tokens.accessToken),
    via: 'provider',
  };
  providerRefresh = tokens.refreshToken ?? providerRefresh;
  set(session);
  return session;
}

async function refreshProviderSession(): Promise<Session | null> {
  if (!providerRefresh) {
    set(null);
    return null;
  }
  try {
    return adoptProviderTokens(await refreshWithProvider(providerRefresh));
  } catch (err) {
    // The provider refused the refresh token (revoked, expired, reused): signed out.
    if (!(err instanceof TypeError)) {
      providerRefresh = undefined;
      set(null);
      return null;
    }
    throw err;
  }
}

export async function signIn(username: string, password: string, tenantId?: string): Promise<Session> {
  const res = await fetch(SESSION_URL, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password, ...(tenantId ? { tenantId } : {}) }),
  });
  return accept(res);
}

/** The second step of a sign-in: a code from the authenticator (or a recovery code) for the challenge. */
export async function verifyMfa(mfaToken: string, code: string, method: 'totp' | 'recovery_code'): Promise<Session> {
  const res = await fetch(`${SESSION_URL}/mfa`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mfaToken, code, method }),
  });
  return accept(res);
}

/** The second step with a passkey: the assertion (navigator.credentials.get() as JSON) for the challenge. */
export async function verifyPasskey(mfaToken: string, credential: unknown): Promise<Session> {
  const res = await fetch(`${SESSION_URL}/webauthn`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mfaToken, credential }),
  });
  return accept(res);
}

async function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? locks.request('console-session-refresh', work) : work();
}

/** A new access token from the cookie; null (signed out) when there is no session any more. */
export function refresh(): Promise<Session | null> {
  const work = async () => {
    try {
      if (current?.via === 'provider') return await refreshProviderSession();
      const res = await fetch(`${SESSION_URL}/refresh`, { method: 'POST', credentials: 'same-origin' });
      if (res.status === 401) {
        set(null);
        return null;
      }
      return await accept(res);
    } catch (err) {
      // The network failed: keep the page and try again shortly while the token lasts.
      if (current && current.expiresAt > Date.now()) {
        clearTimeout(timer);
        timer = setTimeout(() => void refresh(), 5000);
        return current;
      }
      throw err;
    }
  };
  // A provider session's refresh token is this tab's alone: no cross-tab lock to wait for.
  inFlight ??= (current?.via === 'provider' ? work() : exclusive(work)).finally(() => (inFlight = undefined));
  return inFlight;
}

export async function signOut(): Promise<void> {
  const refreshToken = current?.via === 'provider' ? providerRefresh : undefined;
  try {
    if (current?.via === 'provider') {
      if (refreshToken) await revokeAtProvider(refreshToken);
    } else await fetch(SESSION_URL, { method: 'DELETE', credentials: 'same-origin' });
  } finally {
    providerRefresh = undefined;
    set(null);
  }
}

// A background tab's timers are throttled: on return, refresh if the planned time has passed.
if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && current && Date.now() >= refreshAt) void refresh();
  });
}
