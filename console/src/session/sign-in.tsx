// The sign-in form. "Continue with the identity provider" leaves for the platform's OpenID Connect
// provider (authorization code + PKCE, provider.ts), whose pages ask for the password and the
// second factor; the password fields below are the legacy path, kept as the fallback when the
// provider is unreachable and for what its pages do not offer yet (a passkey as second factor).
// The password path: identity's password grant through the router's /console/session route, then,
// when identity asks for a second factor, a code from the authenticator app (or a recovery code)
// through /console/session/mfa, or a passkey (passkey.ts). Enrolling happens on the Security page
// once signed in; a person whose role needs a factor and has none is told to enrol through the API
// first (docs/identity.md).
import { useState } from 'react';
import { signInWithPasskey } from './passkey';
import { startProviderSignIn } from './provider';
import { signIn, SessionError, verifyMfa, type MfaChallenge } from './session';

function messageOf(err: unknown, fallback401: string): string {
  if (err instanceof SessionError && err.status === 401) return fallback401;
  if (err instanceof SessionError && err.status === 429) return 'Too many failed attempts; try again later.';
  return err instanceof Error ? err.message : String(err);
}

export function SignIn({ notice }: { notice?: string }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState('');
  const [challenge, setChallenge] = useState<MfaChallenge>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(username, password, tenant.trim() || undefined);
    } catch (err) {
      if (err instanceof SessionError && err.challenge?.error === 'mfa_required') {
        setChallenge(err.challenge);
        setPassword('');
      } else if (err instanceof SessionError && err.challenge) {
        setError(`${err.message}. Enrol an authenticator app or a passkey, then sign in again.`);
      } else {
        setError(messageOf(err, 'Wrong username, password or tenant.'));
      }
    } finally {
      setBusy(false);
    }
  };
  const viaProvider = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await startProviderSignIn(tenant.trim() || 'default');
    } catch (err) {
      // Unreachable or misconfigured provider: the password form still works.
      setError(
        `The identity provider cannot be reached (${err instanceof Error ? err.message : String(err)}). Sign in with your password instead.`,
      );
      setBusy(false);
    }
  };
  if (challenge) return <SecondFactor challenge={challenge} onRestart={() => setChallenge(undefined)} />;
  return (
    <main id="main" className="sign-in">
      <h1>Reviewer console</h1>
      {notice && <p role="status">{notice}</p>}
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="username">Username</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <label htmlFor="tenant">
          Tenant <span className="muted">(empty: default)</span>
        </label>
        <input
          id="tenant"
          name="tenant"
          autoComplete="organization"
          value={tenant}
          onChange={(e) => setTenant(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted">
          Or through the platform&apos;s identity provider (single sign-on, for the tenant above):
        </p>
        <button type="button" className="secondary" disabled={busy} onClick={() => void viaProvider()}>
          Continue with the identity provider
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

/** The challenge step: one code answers it; a wrong one may be retried until the challenge is used up. */
function SecondFactor({ challenge, onRestart }: { challenge: MfaChallenge; onRestart: () => void }) {
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const canRecover = challenge.factors.includes('recovery_code');
  const canCode = challenge.factors.includes('totp') || canRecover;
  const canPasskey = challenge.factors.includes('webauthn') && typeof PublicKeyCredential !== 'undefined';
  const usePasskey = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await signInWithPasskey(challenge.mfaToken);
    } catch (err) {
      setError(messageOf(err, 'The passkey was not accepted. Try again, or sign in again.'));
    } finally {
      setBusy(false);
    }
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await verifyMfa(challenge.mfaToken, code.trim(), recovery ? 'recovery_code' : 'totp');
    } catch (err) {
      setError(messageOf(err, 'That code was not accepted. Try the next one, or sign in again.'));
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="sign-in">
      <h1>Reviewer console</h1>
      {canPasskey && (
        <p>
          <button type="button" onClick={() => void usePasskey()} disabled={busy}>
            Use a passkey
          </button>
        </p>
      )}
      {canCode && (
        <form onSubmit={submit} aria-label="Second factor">
          <label htmlFor="mfa-code">{recovery ? 'Recovery code' : 'Code from your authenticator app'}</label>
          <input
            id="mfa-code"
            name="code"
            autoComplete="one-time-code"
            inputMode={recovery ? 'text' : 'numeric'}
            required
            autoFocus
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Verify'}
          </button>
          {canRecover && (
            <button type="button" className="secondary" onClick={() => setRecovery(!recovery)}>
              {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
            </button>
          )}
          <button type="button" className="secondary" onClick={onRestart}>
            Start again
          </button>
        </form>
      )}
      {!canCode && (
        <button type="button" className="secondary" onClick={onRestart}>
          Start again
        </button>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </main>
  );
}
