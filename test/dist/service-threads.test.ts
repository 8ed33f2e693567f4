// `npm start` with identity on its own worker thread (SERVICE_THREADS, launcher/service-threads.ts),
// from dist/ as users run it. On PostgreSQL: the banner marks the thread, a token issued on the
// thread verifies there and at the gateway on the main thread (one generated JWT secret for both:
// JWT_SECRET_KEY is deliberately unset), identity's audit event reaches the ledger on the main
// thread through the thread's own outbox relay, and SIGTERM drains both threads (exit code 0);
// a thread that cannot start fails the start with a clear message. On PGlite the setting is
// ignored: every service runs on the main thread.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import { freePort, until } from '../support/waiting';
import { buildDist, createDistDatabase, ROOT, startDist, type DistProcess } from './dist.support';

jest.setTimeout(300_000);

const envName = (name: string) => name.toUpperCase().replace(/-/g, '_');
/** Every service of the built registry (a new one must not fall back to its documented port). */
function serviceNames(): string[] {
  const registry = readFileSync(path.join(ROOT, 'launcher/registry.ts'), 'utf8');
  const list = /export const SERVICES[^=]*=\s*\[([^\]]*)\]/.exec(registry)![1]!;
  const variables = list.split(',').map((v) => v.trim()).filter(Boolean);
  return variables.map((v) => {
    const file = new RegExp(`import \\{ ${v} \\} from '../services/([a-z-]+)'`).exec(registry)![1]!;
    return file;
  });
}

let dataDir: string;
let database: { url: string; drop(): Promise<void> } | undefined;
let platform: DistProcess;
const url: Record<string, string> = {};

async function baseEnv(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    PASSWORD_SCRYPT_LOG_N: '10',
    OCR_WORKERS: '1',
    LOG_LEVEL: 'INFO',
    IDENTITY_MFA_REQUIRED_ROLES: 'none',
    SERVICE_THREADS: 'identity',
  };
  if (database) env.DATABASE_URL = database.url;
  else env.PGLITE_DIR = path.join(dataDir, 'pglite');
  for (const name of serviceNames()) {
    const port = await freePort();
    env[`${envName(name)}_PORT`] = String(port);
    url[name] = `http://127.0.0.1:${port}`;
  }
  return env;
}

beforeAll(async () => {
  await buildDist();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dist-threads-'));
  database = await createDistDatabase();
  platform = startDist(['node', 'dist/launcher/start-all.js'], await baseEnv());
  await platform.waitFor(async () => platform.stdout().includes('Platform running'), 'the start banner');
}, 300_000);

afterAll(async () => {
  await platform?.stop();
  await database?.drop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

async function login(): Promise<string> {
  const res = await fetch(`${url.identity}/v1/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', username: 'admin', password: 'admin-dev-password' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

test('the banner says where identity runs', () => {
  const line = platform.stdout().split('\n').find((l) => l.trim().startsWith('identity '));
  expect(line).toContain(url.identity);
  if (database) expect(line).toContain('(own thread)');
  else expect(platform.stdout()).not.toContain('(own thread)');
});

test('login and verify on identity, the token accepted by the gateway on the other thread', async () => {
  const token = await login();
  const verify = await fetch(`${url.identity}/v1/auth/verify`, { headers: { authorization: `Bearer ${token}` } });
  expect(verify.status).toBe(200);
  expect(await verify.json()).toMatchObject({ valid: true, username: 'admin', tenant_id: 'default' });
  const me = await fetch(`${url.gateway}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ me { username tenantId } }' }),
  });
  expect(await me.json()).toEqual({ data: { me: { username: 'admin', tenantId: 'default' } } });
});

test("identity's audit event reaches the ledger", async () => {
  const token = await login();
  await until(
    async () => {
      const res = await fetch(`${url.ledger}/events?tenant_id=default&event_type=auth_login_succeeded&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { events?: { event_type: string }[] };
      return (body.events ?? []).some((e) => e.event_type === 'auth_login_succeeded');
    },
    'auth_login_succeeded in the ledger',
    { tries: 1200, everyMs: 100 },
  );
});

test('SIGTERM drains every thread and exits 0', async () => {
  const ended = await platform.stop();
  expect(ended).toEqual({ code: 0, signal: null });
  const stopped = platform.stdout().split('\n').filter((l) => l.includes('"msg":"stopped"'));
  // The main thread's and, on PostgreSQL, identity's thread's.
  expect(stopped).toHaveLength(database ? 2 : 1);
});

test('a service thread that cannot start fails npm start with a clear message', async () => {
  if (!database) return; // no threads on PGlite
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const env = await baseEnv();
    env.IDENTITY_PORT = String((taken.address() as { port: number }).port);
    const failing = startDist(['node', 'dist/launcher/start-all.js'], env);
    const ended = await new Promise<number | null>((resolve) => failing.child.once('exit', (code) => resolve(code)));
    expect(ended).toBe(1);
    expect(failing.stderr()).toContain('service identity (own thread) failed to start');
    expect(failing.stdout()).not.toContain('Platform running');
  } finally {
    taken.close();
  }
});
