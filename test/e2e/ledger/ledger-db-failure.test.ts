// Database failure on PostgreSQL (skipped on PGlite, which cannot go away): the ledger talks to
// its database through a TCP proxy the test can cut. While the database is unreachable, requests
// end in 503 with a JSON body after the retries; when it returns, the service recovers by itself
// and nothing was half-written.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import { openDatabase, type Database } from '../../../platform/db/database';
import { createLogger } from '../../../platform/logging/logger';
import type { BuiltService } from '../../../platform/service';
import { ledgerService } from '../../../services/ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { registryOf } from '../../../launcher/registry';

jest.setTimeout(60_000);
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

/** A TCP proxy that can refuse and cut connections, standing in for a database outage. */
async function cuttableProxy(target: { host: string; port: number }) {
  let up = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      up = true;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

onPostgres('database failure', () => {
  let testDb: TestDatabase;
  let db: Database;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  let built: BuiltService;
  let url: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const real = new URL(testDb.config.url!);
    proxy = await cuttableProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(testDb.config.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    db = await openDatabase({ url: viaProxy.toString(), pgliteDir: '', poolSize: 5 }, { migrate: false });
    const env = {
      LOG_LEVEL: 'CRITICAL',
      JWT_SECRET_KEY: TEST_JWT_SECRET,
      NODE_ENV: 'test',
      LEDGER_REQUIRE_AUTH: 'false',
    };
    const config = loadPlatformConfig(env);
    // The event bus talks to the database directly (not through the proxy): only the data path fails.
    built = await ledgerService.build({
      config: { ...config, database: { ...config.database, url: testDb.config.url } },
      db,
      env,
      logger: createLogger('CRITICAL', 'ledger'),
      registry: registryOf(),
    });
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await built?.stop?.();
    await built?.app.close();
    await db?.close().catch(() => {});
    await proxy?.close();
    await testDb?.drop();
  });

  const append = (n: number) =>
    fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'db-fail', event_type: 'x', event_data: { n } }),
    });

  it('answers 503 with a JSON body while the database is away, then recovers', async () => {
    expect((await append(1)).status).toBe(200);

    proxy.down();
    const failed = await append(2);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toEqual({ detail: expect.any(String) });
    const read = await fetch(`${url}/events?tenant_id=db-fail`);
    expect(read.status).toBe(503);
    expect(((await read.json()) as { detail?: unknown }).detail).toBeDefined();
    expect((await fetch(`${url}/readyz`)).status).toBe(503);

    proxy.up();
    // Retried until the ledger's connections are back; each refused try leaves nothing behind.
    await until(async () => (await append(3)).status === 200, 'the ledger to accept appends again', {
      tries: 200,
      everyMs: 100,
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const events = (await (await fetch(`${url}/events?tenant_id=db-fail`)).json()) as {
      events: { event_data: { n: number } }[];
    };
    // The failed append left nothing behind; the chain is whole.
    expect(events.events.map((e) => e.event_data.n)).toEqual([1, 3]);
    expect(await (await fetch(`${url}/verify?tenant_id=db-fail`)).json()).toEqual({
      valid: true,
      total_events: 2,
      error: null,
    });
  });
});
