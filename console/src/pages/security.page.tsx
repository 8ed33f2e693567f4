// Security ("Two-step sign-in"): the signed-in person's second factors and sessions. Enrol an
// authenticator app (a QR code of the otpauth:// URI, drawn here from uqr's matrix as SVG: no
// markup strings, no inline script), register a passkey or security key (navigator.credentials
// through @simplewebauthn/browser), rename or remove a factor, see the recovery codes once, and
// end sessions. Identity enforces the rules (a second-factor sign-in to add a key once one exists,
// the last factor kept while the policy demands one); the page shows its answers.
import { useState } from 'react';
import { useMutation, useQuery } from '@apollo/client/react';
import { startRegistration } from '@simplewebauthn/browser';
import { encode } from 'uqr';
import { graphql } from '../gql';
import type { SecurityOverviewQuery } from '../gql/graphql';
import type { Claims } from '../session/claims';
import { Empty, ErrorNote, Loading } from '../ui/states';

const OVERVIEW = graphql(`
  query SecurityOverview {
    mfaFactors {
      factors {
        id
        kind
        label
        confirmed
        createdAt
        lastUsedAt
      }
      recoveryCodesLeft
    }
    sessions {
      id
      createdAt
      lastUsedAt
      amr
      current
    }
  }
`);

const ENROL_TOTP = graphql(`
  mutation SecurityEnrolTotp($label: String) {
    enrolTotp(label: $label) {
      factorId
      secret
      otpauthUri
    }
  }
`);

const CONFIRM_TOTP = graphql(`
  mutation SecurityConfirmTotp($factorId: ID!, $code: String!) {
    confirmTotp(factorId: $factorId, code: $code) {
      factorId
      recoveryCodes
    }
  }
`);

const PASSKEY_OPTIONS = graphql(`
  mutation SecurityPasskeyOptions {
    webauthnRegistrationOptions
  }
`);

const REGISTER_PASSKEY = graphql(`
  mutation SecurityRegisterPasskey($credential: JSON!, $label: String) {
    registerWebauthn(credential: $credential, label: $label) {
      factorId
      recoveryCodes
    }
  }
`);

const RENAME = graphql(`
  mutation SecurityRenameFactor($id: ID!, $label: String) {
    renameMfaFactor(id: $id, label: $label)
  }
`);

const REMOVE = graphql(`
  mutation SecurityRemoveFactor($id: ID!) {
    removeMfaFactor(id: $id)
  }
`);

const REVOKE = graphql(`
  mutation SecurityRevokeSession($id: ID!) {
    revokeSession(id: $id)
  }
`);

type Factor = SecurityOverviewQuery['mfaFactors']['factors'][number];

const KIND: Record<string, string> = { totp: 'Authenticator app', webauthn: 'Passkey or security key' };

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The otpauth:// URI as a QR code: one SVG path of the dark modules, with a quiet zone. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { data, size } = encode(text, { ecc: 'M', border: 2 });
  let d = '';
  data.forEach((row, y) => row.forEach((dark, x) => (d += dark ? `M${x} ${y}h1v1h-1z` : '')));
  return (
    <svg role="img" aria-label={label} viewBox={`0 0 ${size} ${size}`} width={size * 5} height={size * 5}>
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <section aria-label="Recovery codes">
      <h3>Recovery codes</h3>
      <p>Keep these somewhere safe: each signs you in once if you lose your factors. They are shown only now.</p>
      <ul className="recovery-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function TotpEnrolment({ onDone }: { onDone: (codes: string[] | null) => void }) {
  const [enrol, started] = useMutation(ENROL_TOTP);
  const [confirm, confirmed] = useMutation(CONFIRM_TOTP);
  const [code, setCode] = useState('');
  const enrolment = started.data?.enrolTotp;
  if (!enrolment)
    return (
      <p>
        <button type="button" onClick={() => void enrol().catch(() => undefined)} disabled={started.loading}>
          Add an authenticator app
        </button>
        {started.error && <ErrorNote error={started.error} />}
      </p>
    );
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const res = await confirm({ variables: { factorId: enrolment.factorId, code: code.trim() } }).catch(() => null);
    if (res?.data) onDone(res.data.confirmTotp.recoveryCodes ?? null);
  };
  return (
    <form onSubmit={submit} aria-label="Authenticator app">
      <p>Scan this code with your authenticator app, or type the key.</p>
      <QrCode text={enrolment.otpauthUri} label="QR code for the authenticator app" />
      <p>
        Key: <code>{enrolment.secret}</code>
      </p>
      <label htmlFor="totp-code">First code from the app</label>
      <input
        id="totp-code"
        autoComplete="one-time-code"
        inputMode="numeric"
        required
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <button type="submit" disabled={confirmed.loading}>
        Confirm
      </button>
      {confirmed.error && <ErrorNote error={confirmed.error} />}
    </form>
  );
}

function PasskeyRegistration({ onDone }: { onDone: (codes: string[] | null) => void }) {
  const [options] = useMutation(PASSKEY_OPTIONS);
  const [register] = useMutation(REGISTER_PASSKEY);
  const [label, setLabel] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const opts = await options();
      const optionsJSON = opts.data?.webauthnRegistrationOptions as Parameters<
        typeof startRegistration
      >[0]['optionsJSON'];
      const credential = await startRegistration({ optionsJSON });
      const res = await register({ variables: { credential, label: label.trim() || null } });
      setLabel('');
      onDone(res.data?.registerWebauthn.recoveryCodes ?? null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  if (typeof PublicKeyCredential === 'undefined') return <p>This browser cannot use passkeys.</p>;
  return (
    <form onSubmit={submit} aria-label="Passkey">
      <label htmlFor="passkey-label">
        Name <span className="muted">(optional, e.g. “laptop”)</span>
      </label>
      <input id="passkey-label" value={label} maxLength={100} onChange={(e) => setLabel(e.target.value)} />
      <button type="submit" disabled={busy}>
        {busy ? 'Waiting for the passkey…' : 'Add a passkey'}
      </button>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}

function FactorRow({ factor, onChanged }: { factor: Factor; onChanged: () => void }) {
  const [rename] = useMutation(RENAME);
  const [remove] = useMutation(REMOVE);
  const [error, setError] = useState<string>();
  const act = (work: () => Promise<unknown>) =>
    work()
      .then(onChanged)
      .catch((err: unknown) => setError(messageOf(err)));
  const name = factor.label ?? KIND[factor.kind] ?? factor.kind;
  return (
    <tr>
      <td>{name}</td>
      <td>{KIND[factor.kind] ?? factor.kind}</td>
      <td>{factor.confirmed ? 'active' : 'pending'}</td>
      <td>{factor.lastUsedAt ? new Date(factor.lastUsedAt).toLocaleString() : '—'}</td>
      <td>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            const label = window.prompt('New name', factor.label ?? '');
            if (label !== null) void act(() => rename({ variables: { id: factor.id, label: label.trim() || null } }));
          }}
        >
          Rename <span className="visually-hidden">{name}</span>
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => void act(() => remove({ variables: { id: factor.id } }))}
        >
          Remove <span className="visually-hidden">{name}</span>
        </button>
        {error && (
          <span role="alert" className="error">
            {error}
          </span>
        )}
      </td>
    </tr>
  );
}

export function SecurityPage(_: { me: Claims }) {
  const overview = useQuery(OVERVIEW, { fetchPolicy: 'network-only' });
  const [revoke] = useMutation(REVOKE);
  const [codes, setCodes] = useState<string[] | null>(null);
  const refetch = () => void overview.refetch();
  const done = (recoveryCodes: string[] | null) => {
    setCodes(recoveryCodes);
    refetch();
  };
  if (overview.loading && !overview.data) return <Loading what="your second factors" />;
  if (overview.error && !overview.data) return <ErrorNote error={overview.error} />;
  const data = overview.data!;
  const hasTotp = data.mfaFactors.factors.some((f) => f.kind === 'totp' && f.confirmed);
  return (
    <>
      <h1>Two-step sign-in</h1>
      {codes && <RecoveryCodes codes={codes} />}
      <section aria-labelledby="factors-h">
        <h2 id="factors-h">Your second factors</h2>
        {data.mfaFactors.factors.length === 0 ? (
          <Empty>No second factor yet.</Empty>
        ) : (
          <table>
            <caption className="visually-hidden">Second factors</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">State</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.mfaFactors.factors.map((f) => (
                <FactorRow key={f.id} factor={f} onChanged={refetch} />
              ))}
            </tbody>
          </table>
        )}
        <p>Recovery codes left: {data.mfaFactors.recoveryCodesLeft}</p>
      </section>
      <section aria-labelledby="passkey-h">
        <h2 id="passkey-h">Passkeys and security keys</h2>
        <PasskeyRegistration onDone={done} />
      </section>
      {!hasTotp && (
        <section aria-labelledby="totp-h">
          <h2 id="totp-h">Authenticator app</h2>
          <TotpEnrolment onDone={done} />
        </section>
      )}
      <section aria-labelledby="sessions-h">
        <h2 id="sessions-h">Sessions</h2>
        <table>
          <caption className="visually-hidden">Sessions</caption>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
              <th scope="col">How</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.sessions.map((s) => (
              <tr key={s.id}>
                <td>{new Date(s.createdAt).toLocaleString()}</td>
                <td>{new Date(s.lastUsedAt).toLocaleString()}</td>
                <td>{s.amr.join(' + ')}</td>
                <td>
                  {s.current ? (
                    'this session'
                  ) : (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() => void revoke({ variables: { id: s.id } }).then(refetch)}
                    >
                      End
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
