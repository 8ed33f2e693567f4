// What an operator meets starting single services as processes (issue 16, "start from a build"):
// a gateway needs no database (two start side by side with no DATABASE_URL and no PGlite folder),
// PGLITE_DIR=memory:// still gives a service its throwaway database, and SIGTERM drains, logs
// 'stopped' and exits 0.
import { childEnv, startService, stopAll } from '../../support/processes';
import { freePort, until } from '../../support/waiting';

jest.setTimeout(240_000);

const SECRET = 'lifecycle-test-secret-that-is-long-enough-0123';
const NO_SERVERS = [
  'DATABASE_URL',
  'POSTGRES_URL',
  'NATS_URL',
  'REDIS_URL',
  'PGLITE_DIR',
  'GATEWAY_PORT',
  'IDENTITY_PORT',
];

afterAll(stopAll);

it('two gateways start without any database and stop on SIGTERM, logging it', async () => {
  const env = childEnv({ JWT_SECRET_KEY: SECRET }, NO_SERVERS);
  const [a, b] = await Promise.all([
    startService('gateway', await freePort(), env),
    startService('gateway', await freePort(), env),
  ]);
  for (const g of [a!, b!]) {
    expect(g.output()).toContain('(no database)');
    expect(g.output()).not.toMatch(/database ready/);
  }
  a!.child.kill('SIGTERM');
  const { code, signal } = await a!.exited;
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(a!.output()).toMatch(/"reason":"SIGTERM","msg":"shutting down/);
  expect(a!.output()).toMatch(/"reason":"SIGTERM","msg":"stopped"/);
  // The other one is unaffected.
  expect((await fetch(`${b!.url}/health`)).status).toBe(200);
});

it('a service on PGLITE_DIR=memory:// starts on the in-memory database and stops on SIGTERM', async () => {
  const identity = await startService(
    'identity',
    await freePort(),
    childEnv({ JWT_SECRET_KEY: SECRET, PGLITE_DIR: 'memory://', LEDGER_URL: 'http://127.0.0.1:1' }, NO_SERVERS),
  );
  expect(identity.output()).toContain('PGlite (in memory)');
  identity.child.kill('SIGTERM');
  expect(await identity.exited).toEqual({ code: 0, signal: null });
  await until(() => /"msg":"stopped"/.test(identity.output()), 'the stop to be logged');
});
