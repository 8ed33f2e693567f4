// Router behaviour that needs a subgraph the platform does not have yet: header forwarding as
// the subgraph sees it, multipart uploads streamed to the owning subgraph (no platform subgraph
// takes uploads yet, so the `uploads` fixture declares `scalar Upload`), hot reload of
// supergraph.graphql, and production mode.
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { composeSupergraph } from '../../../router/compose';
import { observeSupergraphReloads } from '../../../router/supergraph/supergraph.source';
import { startUploadsSubgraph, UPLOADS_SDL, type FakeSubgraph } from '../../support/fixtures/fake-subgraphs';
import { until } from '../../support/waiting';
import { deadUrl, fixtureSupergraphFile, startGateway, tokenFor } from '../gateway/gateway.support';

jest.setTimeout(60_000);

describe('router with a fixture subgraph', () => {
  let sub: FakeSubgraph;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let file: string;
  let token: string;

  beforeAll(async () => {
    sub = await startUploadsSubgraph();
    file = fixtureSupergraphFile('http://127.0.0.1:9/graphql'); // routing_url is overridden below
    gw = await startGateway({
      SUPERGRAPH_PATH: file,
      SUBGRAPH_UPLOADS_URL: sub.url,
      IDENTITY_URL: await deadUrl(),
      SUPERGRAPH_RELOAD_DEBOUNCE_MS: '20',
    });
    token = await tokenFor('tenant-a');
  });
  afterAll(async () => {
    await gw?.close();
    await sub?.close();
  });

  const post = async (query: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] },
    };
  };

  it('forwards Authorization, X-Tenant-ID from the token, the correlation id and traceparent', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const { body } = await post('{ echoHeaders { authorization tenantId correlationId traceparent } }', {
      authorization: `Bearer ${token}`,
      'x-correlation-id': 'corr-42',
      traceparent,
    });
    expect(body.data.echoHeaders).toEqual({
      authorization: 'present',
      tenantId: 'tenant-a',
      correlationId: 'corr-42',
      traceparent,
    });
  });

  it('refuses an over-expensive query with QUERY_TOO_COMPLEX and keeps serving', async () => {
    const fields = Array.from({ length: 5_001 }, (_, i) => `a${i}: publicInfo`).join(' ');
    const { status, body } = await post(`{ ${fields} }`, { authorization: `Bearer ${token}` });
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect((await post('{ publicInfo }')).body.data).toEqual({ publicInfo: 'public' });
  });

  it('streams a multipart upload to the owning subgraph', async () => {
    const content = Buffer.alloc(2 * 1024 * 1024 + 17, 'z');
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation($file: Upload!) { upload(file: $file) { filename mimetype size sha256 tenantId } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob([content], { type: 'text/plain' }), 'notes.txt');
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { upload: unknown } };
    expect(body.data.upload).toEqual({
      filename: 'notes.txt',
      mimetype: 'text/plain',
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      tenantId: 'tenant-a',
    });
  });

  it('refuses an anonymous upload to an @authenticated mutation', async () => {
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({ query: 'mutation($file: Upload!) { upload(file: $file) { size } }', variables: { file: null } }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob(['x']), 'x.txt');
    const res = await fetch(`${gw.url}/graphql`, { method: 'POST', body: form });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('reloads supergraph.graphql when it changes, and keeps the old schema for a bad file', async () => {
    expect(
      (await post('{ reloadedField }', { authorization: `Bearer ${token}` })).body.errors?.[0]?.extensions?.code,
    ).toBe('GRAPHQL_VALIDATION_FAILED');

    const sdl = UPLOADS_SDL.replace('publicInfo: String!', 'publicInfo: String! reloadedField: String');
    fs.writeFileSync(file, composeSupergraph([{ name: 'uploads', url: 'http://127.0.0.1:9/graphql', sdl }]));
    let result = await post('{ reloadedField }', { authorization: `Bearer ${token}` });
    await until(async () => {
      result = await post('{ reloadedField }', { authorization: `Bearer ${token}` });
      return result.body.errors?.[0]?.extensions?.code !== 'GRAPHQL_VALIDATION_FAILED';
    }, 'the router to serve the reloaded schema');
    expect(result.body.data).toEqual({ reloadedField: null }); // the fixture has no resolver: null

    // The watcher must have read the bad file (and refused it) before "nothing swapped" means anything.
    const refused = new Promise<void>((resolve) => {
      const stop = observeSupergraphReloads(({ file: seen, outcome }) => {
        if (seen === file && outcome === 'invalid') {
          stop();
          resolve();
        }
      });
    });
    fs.writeFileSync(file, 'this is not a supergraph');
    await refused;
    const still = await post('{ reloadedField publicInfo }', { authorization: `Bearer ${token}` });
    expect(still.body.data).toEqual({ reloadedField: null, publicInfo: 'public' });
  });
});

describe('router in production mode', () => {
  let sub: FakeSubgraph;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  beforeAll(async () => {
    sub = await startUploadsSubgraph();
    gw = await startGateway({
      NODE_ENV: 'production',
      SUPERGRAPH_PATH: fixtureSupergraphFile(sub.url),
      IDENTITY_URL: await deadUrl(),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await sub?.close();
  });

  it('turns introspection and the landing page off', async () => {
    const res = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __schema { types { name } } }' }),
    });
    const body = (await res.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toMatch(/introspection/i);
    const page = await fetch(`${gw.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    const ok = await fetch(`${gw.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ publicInfo }' }),
    });
    expect(await ok.json()).toEqual({ data: { publicInfo: 'public' } });
  });
});
