// Per-address budgets behind the balancer (issue 22): the real `npm run deploy:local` launcher
// starts a gateway process behind nginx with the generated config; the gateway trusts nginx's
// X-Forwarded-For (TRUSTED_PROXIES, set by the launcher to nginx's address) and nobody else's.
// Clients are real sockets from two loopback addresses (Linux answers on all of 127.0.0.0/8):
// each gets its own budget through nginx, while a client forging X-Forwarded-For, through nginx
// or straight at the gateway, gets no new one. Skipped when nginx is not installed (CI installs it).
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import WebSocket from 'ws';
import { deployLocal, type Deployment, type PlannedService } from '../../../launcher/deploy-local';
import { manifestOf } from '../../../launcher/registry';
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { freePort } from '../../support/waiting';
import { deadUrl, fixtureSupergraphFile } from '../../integration/gateway/gateway.support';

jest.setTimeout(300_000);

const ROOT = path.join(__dirname, '../../..');
const NGINX = process.env.NGINX_BINARY ?? 'nginx';
const haveNginx = spawnSync(NGINX, ['-v']).status === 0;
const BURST = 5;

interface Answer {
  status: number;
  body: string;
}

/** One request from a chosen local address, on a fresh connection. */
function from(address: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { localAddress: address, agent: false, headers: { authorization: 'Bearer not-a-valid-token', ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The status of a graphql-ws upgrade from `address`: 101 when it opened. */
function upgradeFrom(address: string, url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { localAddress: address });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.terminate();
    });
    ws.on('error', () => resolve(0));
  });
}

/** The first 429 among a few tries (a refill of 1/s may let one through), else the last status. */
async function refusedWithin(tries: number, send: () => Promise<number>): Promise<number> {
  let status = await send();
  for (let i = 1; i < tries && status !== 429; i++) status = await send();
  return status;
}

(haveNginx ? describe : describe.skip)('per-address budgets through nginx (TRUSTED_PROXIES)', () => {
  let backend: FakeBackend;
  let deployment: Deployment | undefined;
  const children: ChildProcess[] = [];
  let viaNginx: string;
  let direct: string;

  beforeAll(async () => {
    backend = await startFakeBackend();
    const nowhere = await deadUrl();
    const plan: PlannedService[] = [
      { manifest: manifestOf('gateway'), listenPort: await freePort(), processPorts: [await freePort()] },
    ];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'ERROR',
      NGINX_BINARY: NGINX,
      JWT_SECRET_KEY: 'trusted-proxy-test-secret-that-is-long-enough-0123',
      LEDGER_URL: backend.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: fixtureSupergraphFile(`${nowhere}/graphql`),
      // Refill 1/s: the burst, not the refill, decides within the test.
      IP_RATE_LIMIT_PER_SECOND: '1',
      IP_RATE_LIMIT_BURST: String(BURST),
    };
    // One gateway process: its own in-memory buckets, fresh for every run. No proxy is trusted
    // beyond what the launcher itself adds (nginx's address).
    for (const key of ['REDIS_URL', 'TRUSTED_PROXIES', 'DEPLOY_BALANCER_ADDRESS', 'DATABASE_URL', 'POSTGRES_URL'])
      delete env[key];
    deployment = await deployLocal({
      env,
      plan,
      onLog: () => {},
      spawnService: (name, port, childEnv) => {
        const child = spawn(
          process.execPath,
          [path.join(ROOT, 'test/support/run-ts.js'), path.join(ROOT, 'launcher/start-one.ts'), name],
          { cwd: ROOT, env: { ...childEnv, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] },
        );
        children.push(child);
        return child;
      },
    });
    viaNginx = `${deployment.urls.gateway}/api/v1/ledger/events`;
    direct = `http://127.0.0.1:${deployment.processes[0]!.port}/api/v1/ledger/events`;
  });

  afterAll(async () => {
    await deployment?.stop().catch(() => {});
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await backend?.close();
  });

  it('gives two client addresses two budgets; forging X-Forwarded-For buys no new one', async () => {
    // nginx reaches the gateway from the one address the launcher told the gateway to trust.
    expect(fs.readFileSync(deployment!.nginxConfPath, 'utf8')).toContain('proxy_bind 127.0.0.1;');

    // 127.0.0.2 spends its burst through nginx (an invalid token: the per-address bucket runs first).
    const first: number[] = [];
    for (let i = 0; i < BURST; i++) first.push((await from('127.0.0.2', viaNginx)).status);
    expect(first).toEqual(Array(BURST).fill(401));
    const refused = await refusedWithin(3, async () => (await from('127.0.0.2', viaNginx)).status);
    expect(refused).toBe(429);
    expect((await from('127.0.0.2', viaNginx)).body).toMatch(/Too many requests from this address/);
    // The graphql-ws upgrade through nginx meets the same budget of the same client.
    expect(await refusedWithin(3, () => upgradeFrom('127.0.0.2', deployment!.urls.gateway!))).toBe(429);

    // Through the same nginx, 127.0.0.3 has a budget of its own: not one 429.
    const other: number[] = [];
    for (let i = 0; i < BURST; i++) other.push((await from('127.0.0.3', viaNginx)).status);
    expect(other).toEqual(Array(BURST).fill(401));

    // 127.0.0.2 naming another client in X-Forwarded-For through nginx: nginx appends its real
    // address, which is the right-most untrusted one, so the spent budget still applies.
    expect(
      await refusedWithin(
        3,
        async () => (await from('127.0.0.2', viaNginx, { 'x-forwarded-for': '198.51.100.23' })).status,
      ),
    ).toBe(429);

    // Straight at the gateway (not via nginx), 127.0.0.4 is not a trusted proxy: its X-Forwarded-For
    // is ignored. Naming 127.0.0.5 spends its own burst, not 127.0.0.5's...
    const forged: number[] = [];
    for (let i = 0; i < BURST; i++)
      forged.push((await from('127.0.0.4', direct, { 'x-forwarded-for': '127.0.0.5' })).status);
    expect(forged).toEqual(Array(BURST).fill(401));
    // ...so naming a fresh address buys no new budget...
    expect(
      await refusedWithin(
        3,
        async () => (await from('127.0.0.4', direct, { 'x-forwarded-for': '203.0.113.99' })).status,
      ),
    ).toBe(429);
    // ...and 127.0.0.5, whose name was forged, still has its whole budget.
    const named: number[] = [];
    for (let i = 0; i < BURST; i++) named.push((await from('127.0.0.5', viaNginx)).status);
    expect(named).toEqual(Array(BURST).fill(401));
  });
});
