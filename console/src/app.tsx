// The console's shell: signed out it shows the sign-in form; signed in, the page named by the path
// (/console/<page>) inside the layout. A reload asks the router for a fresh access token from the
// session cookie first, so the person stays on their page.
import { useEffect, useMemo, useState } from 'react';
import { ApolloProvider } from '@apollo/client/react';
import { createConsoleClient, setActingTenant } from './apollo/client';
import { PAGES } from './pages/pages';
import { CALLBACK_PATH, finishProviderSignIn } from './session/provider';
import { adoptProviderTokens, currentSession, onSession, refresh, signOut, type Session } from './session/session';
import { SignIn } from './session/sign-in';
import { Layout } from './ui/layout';

const pathOf = () => location.pathname.replace(/^\/console\/?/, '').split('/')[0] || PAGES[0]!.path;

export function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [starting, setStarting] = useState(true);
  const [notice, setNotice] = useState<string>();
  const [path, setPath] = useState(pathOf);
  const [tenant, setTenant] = useState<string>();

  useEffect(() => {
    const off = onSession((s) => {
      setSession((prev) => {
        if (prev && !s) setNotice('You are signed out.');
        // Another person starts in their own tenant.
        if (!s || !prev || prev.claims.username !== s.claims.username || prev.claims.tenantId !== s.claims.tenantId) {
          setActingTenant(undefined);
          setTenant(undefined);
        }
        return s;
      });
    });
    // Back from the provider: exchange the code; otherwise resume the password session's cookie.
    const start = location.pathname === CALLBACK_PATH ? fromProvider() : refresh();
    start.catch(() => undefined).finally(() => setStarting(false));
    const back = () => setPath(pathOf());
    addEventListener('popstate', back);
    return () => {
      off();
      removeEventListener('popstate', back);
    };
  }, []);

  // One client (and so one cache) per person and acting tenant: nothing read for one may show
  // for another, and no in-flight query of the last one is cut short by a cache reset.
  const key = session ? `${session.claims.username}@${session.claims.tenantId}>${tenant ?? ''}` : '';
  const apollo = useMemo(() => (key ? createConsoleClient() : undefined), [key]);
  useEffect(() => () => apollo?.close(), [apollo]);

  const fromProvider = async () => {
    try {
      const { tokens, returnTo } = await finishProviderSignIn();
      history.replaceState(null, '', returnTo);
      setPath(pathOf());
      adoptProviderTokens(tokens);
    } catch (err) {
      history.replaceState(null, '', '/console/');
      setPath(pathOf());
      setNotice(
        `The sign-in through the identity provider did not complete: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  const page = PAGES.find((p) => p.path === path) ?? PAGES[0]!;
  useEffect(() => {
    document.title = `${page.label} · Reviewer console`;
  }, [page]);

  if (starting)
    return (
      <main id="main">
        <p role="status">Loading…</p>
      </main>
    );
  if (!session || !apollo) return <SignIn notice={notice} />;
  const go = (next: string) => {
    history.pushState(null, '', `/console/${next}`);
    setPath(next);
    document.getElementById('main')?.focus();
  };
  const pick = (id: string) => {
    setActingTenant(id === session.claims.tenantId ? undefined : id);
    setTenant(id);
  };
  const Page = page.component;
  return (
    <ApolloProvider client={apollo.client}>
      <Layout
        me={session.claims}
        pages={PAGES}
        current={page.path}
        go={go}
        tenant={tenant ?? session.claims.tenantId}
        setTenant={pick}
        signOut={() => void signOut()}
      >
        <Page me={session.claims} />
      </Layout>
    </ApolloProvider>
  );
}
