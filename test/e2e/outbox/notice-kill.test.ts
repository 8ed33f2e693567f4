// Kill between commit and publish (issue 26, "Done when"): the workflow service runs as a real
// child process on a PGlite directory with its notice relay held back (NOTICE_RELAY_START_DELAY_MS),
// so a started workflow's `workflow.started` notice is committed but not yet published when the
// process is killed with SIGKILL. A new process on the same directory publishes it from the
// notice outbox; a deduplicating consumer in this (test) process, subscribed over NATS JetStream
// across both lives of the producer, receives it exactly once. The bus is NATS_URL's, else a
// nats-server started here; without either the suite is skipped with a message.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { WORKFLOW_TRANSITIONS, type WorkflowTransitionPayload } from '../../../platform/contracts/workflow.events';
import { contractBus } from '../../../platform/events/contract-bus';
import { createEventBus } from '../../../platform/events/create-event-bus';
import type { EventBus } from '../../../platform/events/event-bus';
import { dedupeNotices } from '../../../platform/events/notice-dedupe';
import { childEnv, startService, stopAll, type ServiceProcess } from '../../support/processes';
import { freePort, until } from '../../support/waiting';
import { call, httpPack, PacksStandIn, startCallee, type Callee } from '../workflow/workflow.support';

jest.setTimeout(240_000);

const SECRET = 'notice-kill-secret-that-is-long-enough-0123456789';
const NAMESPACE = `nk${process.pid}`;
const haveNatsServer = !process.env.NATS_URL && spawnSync('nats-server', ['--version']).status === 0;
const runnable = Boolean(process.env.NATS_URL) || haveNatsServer;
if (!runnable) console.warn('notice-kill: skipped (no NATS_URL and no nats-server on PATH)');
const maybe = runnable ? it : it.skip;

let nats: ChildProcess | undefined;
let natsUrl = process.env.NATS_URL ?? '';
let bus: EventBus | undefined;
let callee: Callee;
let registry: http.Server;
let registryUrl = '';

beforeAll(async () => {
  if (!runnable) return;
  if (!process.env.NATS_URL) {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notice-kill-nats-'));
    nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
    natsUrl = `nats://127.0.0.1:${port}`;
  }
  await until(
    async () => {
      try {
        bus = await createEventBus({ natsUrl, namespace: NAMESPACE });
        return true;
      } catch {
        return false;
      }
    },
    'NATS to accept connections',
    { tries: 100, everyMs: 100 },
  );
  callee = await startCallee();
  const packs = new PacksStandIn();
  packs.put(httpPack('notice-pack', callee.url, ['n-a']));
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
  await stopAll();
  await bus?.close();
  nats?.kill('SIGKILL');
  await callee?.close();
  await new Promise((r) => (registry ? registry.close(r) : r(undefined)));
});

function startWorkflow(dataDir: string, relayDelayMs: number): Promise<ServiceProcess> {
  return freePort().then((port) =>
    startService(
      'workflow',
      port,
      childEnv(
        {
          PGLITE_DIR: dataDir,
          NATS_URL: natsUrl,
          PLATFORM_NAMESPACE: NAMESPACE,
          LOG_LEVEL: 'ERROR',
          JWT_SECRET_KEY: SECRET,
          PACKS_REGISTRY_URL: registryUrl,
          WORKFLOW_SYNC_WAIT_MS: '0',
          WORKFLOW_POLL_MS: '50',
          LEDGER_URL: 'http://127.0.0.1:1',
          NOTICE_RELAY_START_DELAY_MS: String(relayDelayMs),
          NOTICE_RELAY_POLL_MS: '50',
        },
        ['DATABASE_URL', 'POSTGRES_URL', 'WORKFLOW_PORT'],
      ),
      { ready: '/readyz' },
    ),
  );
}

maybe(
  'a notice committed before a SIGKILL is published after the restart, once to a deduplicating consumer',
  async () => {
    const raw: string[] = [];
    const handled: WorkflowTransitionPayload[] = [];
    const completed: string[] = [];
    const events = contractBus(bus!, { warn: () => {} });
    await events.subscribe(
      WORKFLOW_TRANSITIONS['workflow.started'],
      // `raw` sees every delivery; the deduplicated handler one per notice id.
      (() => {
        const once = dedupeNotices<(typeof WORKFLOW_TRANSITIONS)['workflow.started']>((p) => void handled.push(p));
        return (p, meta) => {
          raw.push(meta?.id ?? 'bare');
          return once(p, meta);
        };
      })(),
    );
    await events.subscribe(WORKFLOW_TRANSITIONS['workflow.completed'], (p) => void completed.push(p.workflow_id));

    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'notice-kill-')), 'pglite');
    const token = await new AccessTokens(SECRET, 3600).issue({
      username: 'alice',
      tenantId: 'notice-kill',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const first = await startWorkflow(dataDir, 3_600_000);
    const held = callee.hold('/n-a');
    const started = await call(`${first.url}/execute`, {
      token,
      body: { workflow_pack_id: 'notice-pack', workflow_type: 'operational', payload: {} },
    });
    expect(started.status).toBe(200);
    const id = started.body.workflow_id as string;
    // The start committed (the answer came after it) and the saga is in its first step: its
    // notices are in the outbox, and the held relay has published none of them.
    await held.arrived;
    expect(handled).toEqual([]);
    first.child.kill('SIGKILL');
    await first.exited;
    held.release();
    expect(raw).toEqual([]);

    const second = await startWorkflow(dataDir, 0);
    // Notices of one execution are published in order: its completion comes after its start.
    await until(() => completed.includes(id), 'the resumed workflow to complete and be announced', {
      tries: 1200,
      everyMs: 100,
    });
    const mine = handled.filter((p) => p.workflow_id === id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ tenant_id: 'notice-kill', workflow_id: id, version: 1 });
    expect(raw.length).toBeGreaterThanOrEqual(1);
    second.child.kill('SIGTERM');
    await second.exited;
  },
);
