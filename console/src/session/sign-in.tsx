// The sign-in form: identity's password grant through the router's /console/session route.
import { useState } from 'react';
import { signIn, SessionError } from './session';

export function SignIn({ notice }: { notice?: string }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [tenant, setTenant] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(username, password, tenant.trim() || undefined);
    } catch (err) {
      setError(
        err instanceof SessionError && err.status === 401
          ? 'Wrong username, password or tenant.'
          : err instanceof Error
            ? err.message
            : String(err),
      );
    } finally {
      setBusy(false);
    }
  };
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
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
