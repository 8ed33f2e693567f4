// Two workflow processes (launcher/start-one.ts, as in workflow-kill) over one PostgreSQL share
// the work without running any step twice. Sagas of three http steps are started, alternately
// through each process; the middle step's first call per idempotency key answers 503, so every
// saga goes through a durable retry timer and is claimed again by whichever process polls first
// (FOR UPDATE SKIP LOCKED). The callee, owned by the test, counts calls per idempotency key:
// each step's key reaches it exactly once with success (the middle one after exactly one 503).
// PostgreSQL only (PGlite serves one process): skipped unless DATABASE_URL is set.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { freePort, until } from '../../support/waiting';
import { call, httpPack, PacksStandIn } from './workflow.support';

jest.setTimeout(300_000);

const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;
const ROOT = path.join(__dirname, '../../..');
const SECRET = 'two-process-secret-that-is-long-enough-0123456789';
const SAGAS = 30;
const children: ChildProcess[] = [];
let db: TestDatabase | undefined;
let callee: http.Server;
let calleeUrl: string;
let registry: http.Server;
let registryUrl: string;
/** Per `METHOD /path key`: the statuses answered, in order. */
const answers = new Map<string, number[]>();

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startWorkflow(
  databaseUrl: string,
): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    LOG_LEVEL: 'ERROR',
    NODE_ENV: 'test',
    JWT_SECRET_KEY: SECRET,
    PACKS_REGISTRY_URL: registryUrl,
    WORKFLOW_SYNC_WAIT_MS: '0',
    WORKFLOW_POLL_MS: '50',
    WORKFLOW_RETRY_BASE_MS: '20',
    LEDGER_URL: 'http://127.0.0.1:1',
  };
  for (const name of ['POSTGRES_URL', 'NATS_URL', 'WORKFLOW_PORT', 'PGLITE_DIR']) delete env[name];
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

onPostgres('two workflow processes over one PostgreSQL', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    // The callee: the middle step's first call per key answers 503; every other call succeeds.
    callee = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const key = `${req.method} ${req.url} ${String(req.headers['idempotency-key'])}`;
        const seen = answers.get(key) ?? [];
        const status = req.url === '/tp-b' && seen.length === 0 ? 503 : 200;
        answers.set(key, [...seen, status]);
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    calleeUrl = await listen(callee);
    const packs = new PacksStandIn();
    packs.put(httpPack('two-process-pack', calleeUrl, ['tp-a', 'tp-b', 'tp-c']));
    registry = http.createServer(async (req, res) => {
      const id = decodeURIComponent((req.url ?? '').split('/')[2] ?? '');
      try {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await packs.get({}, id)));
      } catch {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found"}');
      }
    });
    registryUrl = await listen(registry);
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(
      children.map((c) =>
        c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined,
      ),
    );
    await new Promise((r) => callee?.close(r));
    await new Promise((r) => registry?.close(r));
    await db?.drop();
  });

  it('sagas started through both processes complete, each step acting once per idempotency key, with work claimed by both', async () => {
    const url = db!.config.url!;
    const [one, two] = await Promise.all([startWorkflow(url), startWorkflow(url)]);
    const token = await new AccessTokens(SECRET, 3600).issue({
      username: 'alice',
      tenantId: 'two-proc',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: SAGAS }, async (_, i) => {
        const r = await call(`${(i % 2 === 0 ? one : two).url}/execute`, {
          token,
          body: { workflow_pack_id: 'two-process-pack', workflow_type: 'operational', payload: { i } },
        });
        expect(r.status).toBe(200);
        ids.push(r.body.workflow_id);
      }),
    );
    await until(
      async () => {
        const { rows } = await db!.sql.query<{ n: string }>(
          `SELECT count(*) AS n FROM workflow_executions WHERE status = 'completed' AND id = ANY($1::uuid[])`,
          [ids],
        );
        return Number(rows[0]!.n) === SAGAS;
      },
      'every saga to complete',
      { tries: 2400, everyMs: 100 },
    );

    for (const id of ids) {
      expect(answers.get(`POST /tp-a ${id}:tp-a`)).toEqual([200]);
      expect(answers.get(`POST /tp-b ${id}:tp-b`)).toEqual([503, 200]);
      expect(answers.get(`POST /tp-c ${id}:tp-c`)).toEqual([200]);
    }
    // Nothing else reached the callee (no compensation, no stray call).
    expect([...answers.values()].reduce((n, a) => n + a.length, 0)).toBe(SAGAS * 4);
    // Both processes drove steps (the executor id names its process).
    const { rows } = await db!.sql.query<{ executor: string }>(
      `SELECT DISTINCT split_part(detail->>'executor', '-', 2) AS executor FROM workflow_transitions WHERE event = 'step.started' AND workflow_id = ANY($1::uuid[])`,
      [ids],
    );
    expect(new Set(rows.map((r) => r.executor))).toEqual(new Set([String(one.child.pid), String(two.child.pid)]));
    one.child.kill('SIGTERM');
    two.child.kill('SIGTERM');
    await Promise.all([one.exited, two.exited]);
  });
});
