// The console's session: the access token lives in this module's memory only (never in storage a
// script could read later); the refresh token is an httpOnly cookie the page never sees, used by
// the router's /console/session routes. The token is refreshed before it expires, and on load (a
// reload keeps the person signed in without keeping a token in the page). Refreshes across tabs
// are serialised with a Web Lock: identity rotates refresh tokens and treats a reused one as
// theft, so two tabs must never present the same cookie at once.
import { claimsOf, type Claims } from './claims';

export interface Session {
  accessToken: string;
  expiresAt: number;
  claims: Claims;
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
  const session = {
    accessToken: body.accessToken,
    expiresAt: Date.now() + body.expiresIn * 1000,
    claims: claimsOf(body.accessToken),
  };
  set(session);
  return session;
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
  inFlight ??= exclusive(async () => {
    try {
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
  }).finally(() => (inFlight = undefined));
  return inFlight;
}

export async function signOut(): Promise<void> {
  try {
    await fetch(SESSION_URL, { method: 'DELETE', credentials: 'same-origin' });
  } finally {
    set(null);
  }
}

// A background tab's timers are throttled: on return, refresh if the planned time has passed.
if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && current && Date.now() >= refreshAt) void refresh();
  });
}
