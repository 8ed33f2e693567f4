// Loading, empty and error states every page uses: a GraphQL error shows its message and its
// extensions.code, never a blank page.
import { CombinedGraphQLErrors } from '@apollo/client';

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const items = CombinedGraphQLErrors.is(error)
    ? error.errors.map((e) => ({ message: e.message, code: String(e.extensions?.code ?? 'UNKNOWN') }))
    : [{ message: error instanceof Error ? error.message : String(error), code: 'NETWORK_ERROR' }];
  return (
    <div role="alert" className="error">
      {items.map((e, i) => (
        <p key={i}>
          <strong>{e.message}</strong> <code className="code">{e.code}</code>
        </p>
      ))}
    </div>
  );
}

/** Any JSON value as indented text; React escapes it, so markup inside shows as markup. */
export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" role="region" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
