// The child of bench/request-alloc.ts, run under `--trace-gc-nvp`: one server on its main thread
// (a bare Fastify, or the kernel + authentication + a verify-shaped handler from a build's dist/),
// a warm-up, then a fixed number of requests (autocannon, 50 connections, in a worker) between two
// MARK lines, so the parent can sum the main isolate's scavenges in that window.
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type * as authHooks from '../platform/http/auth-hooks';
import type * as serviceApp from '../platform/http/service-app';
import type * as platformConfig from '../platform/config/platform.config';
import type * as jwt from '../platform/auth/jwt';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ non2xx: number; errors: number }>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const SECRET = 'request-alloc-bench-secret-0123456789abcdef';
const verifyResponse = {
  type: 'object',
  properties: {
    valid: { type: 'boolean' },
    username: { type: 'string' },
    tenant_id: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string' } },
  },
} as const;

async function main(): Promise<void> {
  const [build = path.join(__dirname, '..'), server = 'kernel+auth', amount = '60000'] = process.argv.slice(2);
  // A path known only at run time; the build is CommonJS like this one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = <T>(file: string) => require(path.resolve(build, file)) as T;
  const { AccessTokens } = load<typeof jwt>('platform/auth/jwt.js');
  const tokens = new AccessTokens(SECRET, 3600);
  let app: FastifyInstance;
  if (server === 'hello') {
    app = Fastify({ logger: false });
    const body = JSON.stringify({
      valid: true,
      username: 'bench',
      tenant_id: 'default',
      roles: ['user'],
      scopes: ['read'],
    });
    app.get('/answer', (_request, reply) => {
      reply.header('content-type', 'application/json');
      return body;
    });
  } else {
    const { createServiceApp } = load<typeof serviceApp>('platform/http/service-app.js');
    const hooks = load<Partial<typeof authHooks> & Pick<typeof authHooks, 'authenticationHook'>>(
      'platform/http/auth-hooks.js',
    );
    const { loadPlatformConfig } = load<typeof platformConfig>('platform/config/platform.config.js');
    const config = loadPlatformConfig({ LOG_LEVEL: 'WARNING', JWT_SECRET_KEY: SECRET, NODE_ENV: 'production' });
    app = await createServiceApp({ name: 'bench', title: 'bench', version: '0', config, health: { readiness: {} } });
    await app.register(async (routes) => {
      // A build from before authenticateRoutes authenticates its prefix with one hook.
      if (hooks.authenticateRoutes) hooks.authenticateRoutes(routes, tokens, 'required');
      else routes.addHook('onRequest', hooks.authenticationHook(tokens, 'required'));
      routes.get('/answer', { schema: { response: { 200: verifyResponse } } }, (request) => {
        const who = request.auth!;
        return { valid: true, username: who.username, tenant_id: who.tenantId, roles: who.roles, scopes: who.scopes };
      });
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/answer`;
  const token = await tokens.issue({ username: 'bench', tenantId: 'default', roles: ['user'], scopes: ['read'] });
  const run = (n: number) =>
    autocannon({ url, connections: 50, workers: 1, amount: n, headers: { authorization: `Bearer ${token}` } });
  await run(20_000); // warm-up: JIT, token cache
  console.log('MARK start');
  const r = await run(Number(amount));
  console.log('MARK end');
  console.log(`failed ${r.non2xx + r.errors}`);
  await app.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
