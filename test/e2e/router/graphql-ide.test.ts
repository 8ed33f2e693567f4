// The offline GraphQL IDE (router/ide, GRAPHQL_IDE): a browser's GET /graphql gets GraphiQL
// loaded only from the router itself, with a strict CSP; API clients are unaffected; production
// and GRAPHQL_IDE=false serve no page at all; a missing dev dependency is a note, not a crash.
// The page's own bootstrap runs here in a VM over the very bundles the router serves (GraphiQL's
// fetcher, graphql-ws), against the real gateway: queries over HTTP, subscriptions over
// graphql-ws with the token taken from the header editor's Authorization.
import path from 'node:path';
import vm from 'node:vm';
import Fastify from 'fastify';
import { parse } from 'graphql';
import WebSocket from 'ws';
import { gatewayService } from '../../../services/gateway';
import { mountGraphQLIde } from '../../../router/ide/ide.plugin';
import { startServices, type Harness } from '../../support/service-harness';
import { repeatUntil } from '../../support/waiting';
import { DEV, gql, startPlatform, type Platform } from './platform.support';

jest.setTimeout(90_000);

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** Every src/href of the page, as written. */
function referencesOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
}

async function getPage(base: string, route = '/graphql', accept = BROWSER_ACCEPT): Promise<Response> {
  return fetch(`${base}${route}`, { headers: { accept } });
}

describe('GraphQL IDE in development', () => {
  let p: Platform;
  let admin: string;
  beforeAll(async () => {
    p = await startPlatform();
    admin = await p.login(DEV.admin.username, DEV.admin.password);
  });
  afterAll(async () => p?.close());

  it('serves GraphiQL to a browser with a strict CSP and no URL off the router', async () => {
    const res = await getPage(p.gateway);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/=]+'(;|$)/);
    expect(csp).toMatch(/connect-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:\/\//);
    const html = await res.text();
    expect(html).toMatch(/id="graphiql"/);
    expect(html).not.toMatch(/https?:\/\/|\/\/[a-z0-9]/i);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/); // no inline script: every <script> has a src
    // The nonce on the bootstrap is this response's.
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(html).toContain(`nonce="${nonce}"`);
    expect(
      (/'nonce-([^']+)'/.exec((await getPage(p.gateway).then((r) => r.headers.get('content-security-policy'))) ?? '') ??
        [])[1],
    ).not.toBe(nonce);

    const refs = referencesOf(html).filter((r) => !r.startsWith('data:'));
    expect(refs).toHaveLength(7);
    const origin = new URL(p.gateway).origin;
    const types: Record<string, string> = {};
    for (const ref of refs) {
      const url = new URL(ref, `${p.gateway}/graphql`);
      expect(url.origin).toBe(origin);
      const asset = await fetch(url);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000, immutable/);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
      types[url.pathname.split('/').pop()!] = asset.headers.get('content-type') ?? '';
      const body = await asset.text();
      expect(body.length).toBeGreaterThan(0);
      // Cached for good, and a revalidation costs nothing.
      const again = await fetch(url, { headers: { 'if-none-match': asset.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
    }
    expect(types).toEqual({
      'react.production.min.js': 'text/javascript; charset=utf-8',
      'react-dom.production.min.js': 'text/javascript; charset=utf-8',
      'graphql-ws.min.js': 'text/javascript; charset=utf-8',
      'graphiql.min.js': 'text/javascript; charset=utf-8',
      'graphiql.min.css': 'text/css; charset=utf-8',
      'ide.js': 'text/javascript; charset=utf-8',
      'ide.css': 'text/css; charset=utf-8',
    });
  });

  it('serves the assets gzipped to clients that take gzip, and 404 for anything else', async () => {
    const ref = referencesOf(await (await getPage(p.gateway)).text()).find((r) => r.endsWith('graphiql.min.js'))!;
    const url = new URL(ref, `${p.gateway}/graphql`);
    const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    const plainBody = Buffer.from(await plain.arrayBuffer());
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plainBody.toString('utf8')).toContain('GraphiQL');
    const gz = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(Number(gz.headers.get('content-length'))).toBeLessThan(plainBody.length / 2);
    expect(Buffer.from(await gz.arrayBuffer()).equals(plainBody)).toBe(true); // fetch decodes it
    const [hash] = url.pathname.split('/').slice(-2);
    for (const route of [
      `/graphql-ide/${hash}/secret.js`,
      '/graphql-ide/0000000000000000/graphiql.min.js',
      `/graphql-ide/${hash}/..%2F..%2Fpackage.json`,
    ]) {
      expect((await fetch(`${p.gateway}${route}`)).status).toBe(404);
    }
  });

  it('opens a browser GET with a query string in the IDE, as the landing page did', async () => {
    const res = await getPage(p.gateway, `/graphql?query=${encodeURIComponent('{ me { username } }')}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/id="graphiql"/);
  });

  it('leaves API clients alone: POST, GET with a query, CSRF prevention, Accept */*', async () => {
    const post = await gql(p.gateway, '{ me { username } }', { token: admin });
    expect(post.body.data.me.username).toBe('admin');
    const get = await fetch(`${p.gateway}/graphql?query=${encodeURIComponent('{ me { username } }')}`, {
      headers: { authorization: `Bearer ${admin}`, 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { me: { username: 'admin' } } });
    const simple = await fetch(`${p.gateway}/graphql?query=${encodeURIComponent('{ me { username } }')}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(simple.status).toBe(400);
    expect(await simple.text()).toMatch(/CSRF|preflight/i);
    for (const accept of [
      '*/*',
      'application/json',
      'application/json, text/html',
      'text/html;q=0.5, application/graphql-response+json',
    ]) {
      const res = await getPage(p.gateway, '/graphql', accept);
      expect([res.status, res.headers.get('content-type')]).not.toEqual([200, expect.stringMatching(/text\/html/)]);
      expect(await res.text()).not.toMatch(/graphiql/i);
    }
  });

  describe("the page's bootstrap over the served bundles", () => {
    let fetcher: (
      params: { query: string; operationName?: string },
      opts: { headers?: Record<string, string>; documentAST?: unknown },
    ) => Promise<any>;
    let props: Record<string, unknown>;

    beforeAll(async () => {
      const html = await (await getPage(p.gateway)).text();
      const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => new URL(m[1]!, `${p.gateway}/graphql`));
      const gateway = new URL(p.gateway);
      // What a browser gives those scripts, minimally: relative fetches resolve against the page.
      const page: Record<string, any> = {
        console,
        setTimeout,
        clearTimeout,
        setInterval,
        clearInterval,
        queueMicrotask,
        URLSearchParams,
        TextDecoder,
        TextEncoder,
        AbortController,
        WebSocket,
        CloseEvent: class CloseEvent {},
        navigator: { userAgent: 'node', platform: 'node', vendor: '' },
        location: { protocol: gateway.protocol, host: gateway.host, pathname: '/graphql', search: '' },
        fetch: (url: string, init: RequestInit) => fetch(new URL(url, `${p.gateway}/graphql`), init),
        document: permissive(),
      };
      page.window = page;
      page.self = page;
      page.globalThis = page;
      vm.createContext(page);
      for (const url of scripts) {
        if (url.pathname.endsWith('/ide.js')) {
          page.document = { currentScript: { nonce: 'n0nce' }, getElementById: () => ({}) };
          page.ReactDOM = {
            createRoot: () => ({ render: (element: { props: Record<string, unknown> }) => (props = element.props) }),
          };
        }
        vm.runInContext(await (await fetch(url)).text(), page, { filename: url.pathname });
      }
      expect(page.__webpack_nonce__).toBe('n0nce');
      fetcher = props.fetcher as typeof fetcher;
    });

    it('renders GraphiQL with the header editor open and headers kept out of storage', () => {
      expect(props).toMatchObject({ defaultEditorToolsVisibility: 'headers', shouldPersistHeaders: false });
      expect(props.defaultQuery).toMatch(/Authorization/);
    });

    it("POSTs queries to the page's URL with the header editor's Authorization", async () => {
      const query = '{ me { username } }';
      expect(
        await fetcher({ query }, { headers: { Authorization: `Bearer ${admin}` }, documentAST: parse(query) }),
      ).toEqual({ data: { me: { username: 'admin' } } });
      const anonymous = await fetcher({ query }, { headers: {}, documentAST: parse(query) });
      expect(anonymous.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });

    it('subscribes over graphql-ws with the token from the header editor in connectionParams', async () => {
      const query = 'subscription Appended { ledgerEventAppended(eventType: "ide_e2e") { eventType eventData } }';
      const events: AsyncIterableIterator<any> = await fetcher(
        { query, operationName: 'Appended' },
        { headers: { Authorization: `Bearer ${admin}` }, documentAST: parse(query) },
      );
      let first: IteratorResult<any> | undefined;
      void events.next().then((r) => (first = r));
      await repeatUntil(
        async () => {
          const append = await fetch(`${p.gateway}/api/v1/ledger/append`, {
            method: 'POST',
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify({ tenant_id: 'default', event_type: 'ide_e2e', event_data: { n: 7 } }),
          });
          expect(append.status).toBe(200);
        },
        () => first !== undefined,
        "the first subscription event through the IDE's fetcher",
      );
      expect(first!.value).toEqual({ data: { ledgerEventAppended: { eventType: 'ide_e2e', eventData: { n: 7 } } } });
      await events.return?.();

      // Without the header the router refuses the socket (4401): the token really came from it.
      // GraphiQL shows the refusal as a result.
      const refused: AsyncIterableIterator<any> = await fetcher(
        { query, operationName: 'Appended' },
        { headers: {}, documentAST: parse(query) },
      );
      expect((await refused.next()).value).toEqual({
        errors: [
          {
            message:
              'Socket closed with event 4401: Unauthorized: connectionParams need a valid Authorization bearer token',
          },
        ],
      });
      expect((await refused.next()).done).toBe(true);
    });
  });
});

/** A stand-in for `document` while GraphiQL's bundle loads (it only probes it at load time). */
function permissive(): any {
  const target = function () {} as unknown as Record<string | symbol, unknown>;
  return new Proxy(target, {
    get: (t, key) =>
      key === Symbol.toPrimitive ? () => '' : key === 'length' ? 0 : key in t ? t[key] : (t[key] = permissive()),
    apply: () => permissive(),
    construct: () => permissive(),
  });
}

describe.each([
  ['in production', { NODE_ENV: 'production' }],
  ['with GRAPHQL_IDE=false', { GRAPHQL_IDE: 'false' }],
])('GraphQL IDE %s', (_label, env) => {
  let gw: Harness;
  let url: string;
  beforeAll(async () => {
    gw = await startServices([gatewayService], env);
    url = gw.services.gateway!.url;
  });
  afterAll(async () => gw?.close());

  it('serves no page: a browser GET is an ordinary (CSRF-refused) GraphQL GET, never a CDN page', async () => {
    const res = await getPage(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    const body = await res.text();
    expect(body).toMatch(/CSRF|preflight/i);
    expect(body).not.toMatch(/graphiql|sandbox|apollographql\.com|cdn/i);
    expect((await fetch(`${url}/graphql-ide/x/graphiql.min.js`)).status).toBe(404);
    // POST is unaffected.
    const post = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await post.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('GraphQL IDE without its development dependencies', () => {
  it('logs one warning and serves a note instead of failing', async () => {
    const warnings: unknown[][] = [];
    const app = Fastify();
    const ide = mountGraphQLIde(app, {
      logger: { warn: (...args: unknown[]) => warnings.push(args) } as never,
      locate: (pkg) => {
        if (pkg === 'graphql-ws') return path.dirname(require.resolve('graphql-ws/package.json'));
        throw Object.assign(new Error(`Cannot find module '${pkg}/package.json'`), { code: 'MODULE_NOT_FOUND' });
      },
    });
    app.get('/graphql', (request, reply) =>
      ide.wantsPage(request) ? ide.sendPage(request, reply) : reply.send({ api: true }),
    );
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(warnings[0])).toMatch(/graphiql/);
      const res = await getPage(base);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toMatch(/development dependencies/);
      expect(html).toMatch(/GRAPHQL_IDE=false/);
      expect(html).not.toMatch(/<script|https?:\/\//);
      expect(await (await fetch(`${base}/graphql`)).json()).toEqual({ api: true });
      expect(warnings).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
