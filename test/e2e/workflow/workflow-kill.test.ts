// Kill in the middle: the workflow service runs as a real child process (launcher/start-one.ts)
// on a PGlite directory; a saga of three http steps is started, and while the second step's call
// is in flight the process is killed with SIGKILL. A new process on the same directory resumes
// the saga to completed: the first step is never called again, the second is called again with
// the same idempotency key (so the callee acts once), the third once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { freePort, until } from '../../support/waiting';
import { call, httpPack, PacksStandIn, startCallee, type Callee } from './workflow.support';

jest.setTimeout(240_000);

const ROOT = path.join(__dirname, '../../..');
const SECRET = 'kill-test-secret-that-is-long-enough-0123456789';
const children: ChildProcess[] = [];
let callee: Callee;
let registry: http.Server;
let registryUrl: string;

async function startWorkflow(dataDir: string): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGLITE_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'ERROR',
    NODE_ENV: 'test',
    JWT_SECRET_KEY: SECRET,
    PACKS_REGISTRY_URL: registryUrl,
    WORKFLOW_SYNC_WAIT_MS: '0',
    WORKFLOW_POLL_MS: '50',
    LEDGER_URL: 'http://127.0.0.1:1',
  };
  for (const name of ['DATABASE_URL', 'POSTGRES_URL', 'NATS_URL', 'WORKFLOW_PORT']) delete env[name];
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'test/support/run-ts.js'), path.join(ROOT, 'launcher/start-one.ts'), 'workflow'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  await until(
    async () => {
      if (gone) throw new Error(`the workflow service exited during start:\n${output}`);
      return fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    'the workflow service to be ready',
    { tries: 2000, everyMs: 100 },
  );
  return { child, url, exited };
}

beforeAll(async () => {
  callee = await startCallee();
  // The packs registry's one route the workflow service needs, answered from memory.
  const packs = new PacksStandIn();
  packs.put(httpPack('kill-pack', callee.url, ['k-a', 'k-b', 'k-c']));
  registry = http.createServer(async (req, res) => {
    const id = decodeURIComponent((req.url ?? '').split('/')[2] ?? '');
    try {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await packs.get({}, id)));
    } catch {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found"}');
    }
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await callee?.close();
  await new Promise((r) => registry?.close(r));
});

it('a saga killed with SIGKILL mid-step resumes in a new process with no step run twice', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'workflow-kill-')), 'pglite');
  const token = await new AccessTokens(SECRET, 3600).issue({
    username: 'alice',
    tenantId: 'kill',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  const first = await startWorkflow(dataDir);
  const held = callee.hold('/k-b');
  const started = await call(`${first.url}/execute`, {
    token,
    body: { workflow_pack_id: 'kill-pack', workflow_type: 'operational', payload: {} },
  });
  expect(started.status).toBe(200);
  const id = started.body.workflow_id as string;
  await held.arrived;
  first.child.kill('SIGKILL');
  await first.exited;
  held.release(); // the callee finishes its work; its answer reaches nobody

  const second = await startWorkflow(dataDir);
  let s: any;
  await until(
    async () => (s = (await call(`${second.url}/status/${id}`, { token })).body).status === 'completed',
    'the resumed saga to complete',
    { tries: 600, everyMs: 100 },
  );
  const mine = callee.calls.filter((c) => c.key?.startsWith(id));
  expect(mine.map((c) => c.path)).toEqual(['/k-a', '/k-b', '/k-b', '/k-c']);
  expect(new Set(mine.filter((c) => c.path === '/k-b').map((c) => c.key))).toEqual(new Set([`${id}:k-b`]));
  // One effect per step at the callee.
  expect([...callee.effects.keys()].filter((k) => k.includes(id))).toHaveLength(3);
  expect(s.steps.map((x: any) => [x.step, x.status, x.attempts])).toEqual([
    ['k-a', 'completed', 1],
    ['k-b', 'completed', 2],
    ['k-c', 'completed', 1],
  ]);
  second.child.kill('SIGTERM');
  await second.exited;
});
