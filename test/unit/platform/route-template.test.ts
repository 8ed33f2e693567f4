// routeTemplate reads the matched route's template from Fastify's route context (an internal
// symbol): it must answer what the public `request.routeOptions.url` answers, for a matched route
// with parameters, under a prefix, and for a request no route matched.
import Fastify from 'fastify';
import { routeTemplate } from '../../../platform/http/route-template';

describe('routeTemplate', () => {
  it('answers the public route template for matched and unmatched requests', async () => {
    const app = Fastify({ logger: false });
    const seen: { template: string | undefined; public: string | undefined }[] = [];
    app.addHook('onResponse', (request, _reply, done) => {
      seen.push({ template: routeTemplate(request), public: request.routeOptions.url });
      done();
    });
    app.get('/api/config/:tenant_id/effective', async () => ({ ok: true }));
    await app.register(
      async (scoped) => {
        scoped.get('/things/:id', async () => ({ ok: true }));
      },
      { prefix: '/v1' },
    );
    // Over a socket: light-my-request's inject does not load under this jest setup.
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    for (const path of ['/api/config/acme/effective', '/v1/things/7?x=1', '/nowhere'])
      await (await fetch(base + path)).text();
    await app.close();
    expect(seen).toEqual([
      { template: '/api/config/:tenant_id/effective', public: '/api/config/:tenant_id/effective' },
      { template: '/v1/things/:id', public: '/v1/things/:id' },
      { template: undefined, public: undefined },
    ]);
  });
});
