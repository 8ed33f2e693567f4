// The frame around every page: a skip link, the menu (links, so the keyboard and the browser's
// history work as usual), who is signed in, the tenant picker of a platform operator, sign-out.
import { useQuery } from '@apollo/client/react';
import { graphql } from '../gql';
import { isOperator, type Claims } from '../session/claims';
import type { ConsolePage } from '../pages/pages';

const TENANTS = graphql(`
  query ConsoleTenants {
    tenants {
      id
      name
    }
  }
`);

function TenantPicker({ value, onChange }: { value: string; onChange(id: string): void }) {
  const { data, error } = useQuery(TENANTS, { fetchPolicy: 'cache-first' });
  return (
    <div className="tenant">
      <label htmlFor="acting-tenant">Acting in tenant</label>
      <select id="acting-tenant" value={value} onChange={(e) => onChange(e.target.value)}>
        {(data?.tenants ?? [{ id: value, name: value }]).map((t) => (
          <option key={t.id} value={t.id}>
            {t.name} ({t.id})
          </option>
        ))}
      </select>
      {error && (
        <span className="error" role="alert">
          {error.message}
        </span>
      )}
    </div>
  );
}

export function Layout(props: {
  me: Claims;
  pages: readonly ConsolePage[];
  current: string;
  go(path: string): void;
  tenant: string;
  setTenant(id: string): void;
  signOut(): void;
  children: React.ReactNode;
}) {
  const { me, pages, current, go } = props;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Reviewer console</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <a
                  href={`/console/${p.path}`}
                  aria-current={p.path === current ? 'page' : undefined}
                  onClick={(e) => {
                    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                    e.preventDefault();
                    go(p.path);
                  }}
                >
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span data-testid="who">
            {me.username} · {me.tenantId}
            {me.roles.length ? ` · ${me.roles.join(', ')}` : ''}
          </span>
          {isOperator(me) && <TenantPicker value={props.tenant} onChange={props.setTenant} />}
          <button type="button" className="secondary" onClick={props.signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </>
  );
}
