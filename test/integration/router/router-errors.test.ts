// What the router tells a client when a subgraph misbehaves: a message naming the subgraph and
// a neutral code, never the subgraph's URL, its raw body or the internals in its errors. The
// subgraph here answers however the test says (502 with an HTML page, a body that is not JSON,
// Prisma's text in an error, a dropped connection, a proper domain error); another gateway points
// at a port nothing listens on.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { deadUrl, fixtureSupergraphFile, startGateway, tokenFor } from '../gateway/gateway.support';

// Generous: each case starts gateway processes, which took over 60 s on a loaded CI machine (stop 39).
jest.setTimeout(180_000);

type Mode = 'html502' | 'notJson' | 'leaky' | 'domain' | 'reset';

const SECRETS = ['SECRET-BODY', '/srv/app', 'P2002', 'prisma', 'stacktrace', 'internal-db.local'];

async function misbehavingSubgraph(): Promise<{ app: FastifyInstance; url: string; mode: Mode }> {
  const app = Fastify({ forceCloseConnections: true });
  const state = { app, url: '', mode: 'html502' as Mode };
  app.post('/graphql', async (request, reply) => {
    switch (state.mode) {
      case 'html502':
        return reply
          .code(502)
          .header('content-type', 'text/html')
          .send('<html><body>SECRET-BODY nginx upstream /srv/app at internal-db.local</body></html>');
      case 'notJson':
        return reply
          .code(200)
          .header('content-type', 'text/plain')
          .send('SECRET-BODY: TypeError at /srv/app/server.js:12');
      case 'leaky':
        return reply.code(200).send({
          data: { publicInfo: null },
          errors: [
            {
              message: 'Invalid `prisma.user.findMany()` invocation in /srv/app/user.store.ts:40:12 (P2002)',
              path: ['publicInfo'],
              extensions: {
                code: 'P2002',
                exception: { stacktrace: ['at /srv/app/user.store.ts:40:12'] },
                host: 'internal-db.local',
              },
            },
          ],
        });
      case 'domain':
        return reply.code(200).send({
          data: { publicInfo: null },
          errors: [{ message: 'Nothing public today', path: ['publicInfo'], extensions: { code: 'NOT_FOUND' } }],
        });
      case 'reset':
        reply.hijack();
        request.raw.socket.destroy();
        return;
    }
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  state.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/graphql`;
  return state;
}

describe('router errors from misbehaving subgraphs', () => {
  let sub: Awaited<ReturnType<typeof misbehavingSubgraph>>;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let down: Awaited<ReturnType<typeof startGateway>>;
  let nowhere: string;
  let token: string;

  beforeAll(async () => {
    sub = await misbehavingSubgraph();
    nowhere = `${await deadUrl()}/graphql`;
    gw = await startGateway({ SUPERGRAPH_PATH: fixtureSupergraphFile(sub.url), IDENTITY_URL: await deadUrl() });
    down = await startGateway({ SUPERGRAPH_PATH: fixtureSupergraphFile(nowhere), IDENTITY_URL: await deadUrl() });
    token = await tokenFor('tenant-a');
  });
  afterAll(async () => {
    await gw?.close();
    await down?.close();
    await sub?.app.close();
  });

  const ask = async (url: string) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ publicInfo }' }),
    });
    const text = await res.text();
    return {
      text,
      body: JSON.parse(text) as { data?: unknown; errors: { message: string; extensions: Record<string, unknown> }[] },
    };
  };

  const expectNoInternals = (text: string, subgraphUrl: string) => {
    const { host } = new URL(subgraphUrl);
    expect(text).not.toContain(host);
    expect(text).not.toContain('127.0.0.1');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  };

  it.each([
    ['answers 502 with an HTML page', 'html502', 'BAD_GATEWAY', "Subgraph 'uploads' gave an invalid response"],
    ['answers with a body that is not JSON', 'notJson', 'BAD_GATEWAY', "Subgraph 'uploads' gave an invalid response"],
    ['drops the connection', 'reset', 'BAD_GATEWAY', "Subgraph 'uploads' gave an invalid response"],
    [
      'sends Prisma text, a file path and a database code in an error',
      'leaky',
      'INTERNAL_SERVER_ERROR',
      'Internal server error',
    ],
  ] as const)(
    'when the subgraph %s, the client gets a neutral message and code only',
    async (_label, mode, code, message) => {
      sub.mode = mode;
      const { text, body } = await ask(gw.url);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]!.message).toBe(message);
      expect(body.errors[0]!.extensions).toEqual({ code });
      expectNoInternals(text, sub.url);
    },
  );

  it("keeps a subgraph's domain error (message and code)", async () => {
    sub.mode = 'domain';
    const { body } = await ask(gw.url);
    expect(body.errors[0]).toMatchObject({ message: 'Nothing public today', extensions: { code: 'NOT_FOUND' } });
    expect(body.errors[0]!.extensions).toEqual({ code: 'NOT_FOUND' });
  });

  it('names only the subgraph when nothing answers at its URL', async () => {
    const { text, body } = await ask(down.url);
    expect(body.errors[0]!.message).toBe("Subgraph 'uploads' is unavailable");
    expect(body.errors[0]!.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE' });
    expect(text).not.toMatch(/ECONNREFUSED|connect /);
    expectNoInternals(text, nowhere);
  });
});
