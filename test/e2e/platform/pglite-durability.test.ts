// An append the ledger acknowledged (200) on the embedded database survives `kill -9` of the
// process: the ledger runs as a real child process (launcher/start-one.ts) on a PGlite directory,
// is killed without warning right after the acknowledgements, and is started again at once on
// the same directory (which the lock must allow), where every acknowledged event is back and
// the chain verifies.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, until } from '../../support/waiting';

// Two cold starts of PGlite (initdb, migrations) on a busy 2-core machine. Not a speed assertion.
jest.setTimeout(240_000);

const ROOT = path.join(__dirname, '../../..');
const children: ChildProcess[] = [];

interface Ledger {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
  output: () => string;
}

async function startLedger(dataDir: string): Promise<Ledger> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGLITE_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'ERROR',
    NODE_ENV: 'test',
    LEDGER_REQUIRE_AUTH: 'false',
  };
  // This test is about the embedded database, whatever the suite runs on.
  for (const name of ['DATABASE_URL', 'POSTGRES_URL', 'NATS_URL', 'LEDGER_PORT']) delete env[name];
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'test/support/run-ts.js'), path.join(ROOT, 'launcher/start-one.ts'), 'ledger'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    async () => {
      if (gone) throw new Error(`the ledger exited during start:\n${output}`);
      return fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
    },
    'the ledger to be ready',
    { tries: 2000, everyMs: 100 },
  );
  return { child, url, exited, output: () => output };
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

it('keeps every acknowledged append across kill -9 and an immediate restart', async () => {
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-durability-')), 'pglite');
  const first = await startLedger(dataDir);

  const append = (i: number) =>
    fetch(`${first.url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'durable', event_type: 'crash_test', event_data: { i } }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string; chain_hash: string } }));
  // Concurrent appends (one group-commit batch or several) and then one on its own.
  const acknowledged = [...(await Promise.all(Array.from({ length: 20 }, (_, i) => append(i)))), await append(20)];
  expect(acknowledged.map((a) => a.status)).toEqual(Array(21).fill(200));

  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startLedger(dataDir);
  const listed = (await (await fetch(`${second.url}/events?tenant_id=durable&limit=1000`)).json()) as {
    total: number;
    events: { id: string; chain_hash: string }[];
  };
  expect(listed.total).toBe(21);
  expect(listed.events.map((e) => e.id).sort()).toEqual(acknowledged.map((a) => a.body.id).sort());
  expect(listed.events.map((e) => e.chain_hash).sort()).toEqual(acknowledged.map((a) => a.body.chain_hash).sort());
  expect(await (await fetch(`${second.url}/verify?tenant_id=durable`)).json()).toEqual({
    valid: true,
    total_events: 21,
    error: null,
  });

  // And the restarted ledger takes new appends on the recovered chain.
  const after = await fetch(`${second.url}/append`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: 'durable', event_type: 'after', event_data: {} }),
  });
  expect(after.status).toBe(200);
  second.child.kill('SIGTERM');
  await second.exited;
});
