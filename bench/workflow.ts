// `npm run bench -- workflow [seconds] [concurrency]`: the workflow service's numbers, on the whole
// platform in one child process (launcher/start-all, embedded PGlite in a temporary directory
// unless DATABASE_URL is set: the lead runs it on PostgreSQL), driven over HTTP from this one:
//   - simple executions per second: POST /execute of the built-in operational pack (three action
//     steps, no approval), every transition durable before the answer, `concurrency` in flight;
//   - approval round trip: POST /approve of a pending legal workflow until it answers with the
//     saga resumed to completed (p50, p99);
//   - subscription latency: from POST /approve to the `approval.decided` transition reaching a
//     graphql-ws client subscribed to workflowStatusChanged through the router (p50, p99).
// Numbers only: nothing here passes or fails on time.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { SERVICES } from '../launcher/registry';
import { AccessTokens } from '../platform/auth/jwt';
import { freePortPair } from './frontend.support';

// Tokens are signed here for two users of tenant `default` (the dev `user` has no write scope).
const SECRET = 'bench-workflow-secret-that-is-long-enough-0123456789';

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${fmt(pct(s, 0.5), 1)} ms, p99 ${fmt(pct(s, 0.99), 1)} ms (n=${s.length})`;
};

async function startPlatformProcess(): Promise<{
  child: ChildProcess;
  gateway: string;
  workflow: string;
  identity: string;
}> {
  // Every service on a free port: other platforms may run on this machine at the documented ones.
  const ports = await freePortPair(SERVICES.length);
  const portOf = (name: string) => ports[SERVICES.findIndex((s) => s.name === name)]!;
  const [gatewayPort, identityPort, workflowPort] = ['gateway', 'identity', 'workflow'].map(portOf);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-workflow-'));
  const env = {
    ...process.env,
    ...Object.fromEntries(
      SERVICES.map((s, i) => [`${s.name.toUpperCase().replace(/-/g, '_')}_PORT`, String(ports[i])]),
    ),
    PGLITE_DIR: dataDir,
    JWT_SECRET_KEY: SECRET,
    LOG_LEVEL: 'WARNING',
    NODE_ENV: 'development',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    IP_RATE_LIMIT_PER_SECOND: '1000000',
    IP_RATE_LIMIT_BURST: '1000000',
  };
  const child = fork(path.join(__dirname, '..', 'launcher', 'start-all.js'), [], {
    env,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Platform running')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`platform exited with ${code}`)));
  });
  return {
    child,
    gateway: `http://127.0.0.1:${gatewayPort}`,
    workflow: `http://127.0.0.1:${workflowPort}`,
    identity: `http://127.0.0.1:${identityPort}`,
  };
}

async function commitCounter(): Promise<{ read(): Promise<number>; close(): Promise<void> } | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  return {
    async read() {
      // Backends report their statistics up to a second late: let them, then read a fresh snapshot.
      await new Promise((r) => setTimeout(r, 1500));
      await client.query('SELECT pg_stat_clear_snapshot()');
      const r = await client.query<{ n: string }>(
        'SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      return Number(r.rows[0]!.n);
    },
    close: () => client.end(),
  };
}

async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  const concurrency = Number(args[1] ?? 16);
  const p = await startPlatformProcess();
  try {
    const tokens = new AccessTokens(SECRET, 3600);
    const admin = await tokens.issue({
      username: 'alice',
      tenantId: 'default',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const reviewer = await tokens.issue({
      username: 'bob',
      tenantId: 'default',
      roles: ['reviewer'],
      scopes: ['read', 'write'],
      // Deciding an approval is a step-up action: the reviewer signed in with a second factor.
      amr: ['pwd', 'otp'],
    });
    console.log(
      `platform: one process (pid ${p.child.pid}), ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (durable, in a temporary directory)'}; clients in this process`,
    );

    // 1. Simple executions per second.
    for (let i = 0; i < 50; i++)
      await post(`${p.workflow}/execute`, admin, { workflow_type: 'operational', payload: { i } });
    // On PostgreSQL: commits in the database per execution (every process's: the workflow's own,
    // its bus NOTIFYs, the outbox relay and the ledger), a figure the machine's load cannot bend.
    const commits = await commitCounter();
    const before = await commits?.read();
    let done = 0;
    let failed = 0;
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const r = await post(`${p.workflow}/execute`, admin, { workflow_type: 'operational', payload: { n: done } });
          if (r.status === 'completed') done++;
          else failed++;
        }
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    console.log(
      `simple executions (3 action steps, durable, POST /execute answered completed): ${fmt(done / elapsed, 1)}/s over ${fmt(elapsed, 1)} s, ${concurrency} in flight${failed ? `, ${failed} not completed` : ''}`,
    );
    if (commits && before !== undefined) {
      const after = await commits.read();
      console.log(
        `  database commits per execution (whole platform, PostgreSQL pg_stat_database): ${fmt((after - before) / Math.max(1, done + failed), 1)}`,
      );
      await commits.close();
    }

    // 2. Approval round trip.
    const approvals: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = await post(`${p.workflow}/execute`, admin, { workflow_type: 'legal', payload: { i } });
      const a0 = performance.now();
      const d = await post(
        `${p.workflow}/approve/${started.approval_task_id}`,
        reviewer,
        { decision: 'approve' },
        { 'x-user-id': 'bob' },
      );
      approvals.push(performance.now() - a0);
      if (d.workflow_status !== 'completed') throw new Error(`approval left ${d.workflow_status}`);
    }
    console.log(`approval round trip (POST /approve until the saga answered completed): ${summary(approvals)}`);

    // 3. Subscription latency through the router.
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${admin}` },
      retryAttempts: 0,
    });
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = await post(`${p.workflow}/execute`, admin, { workflow_type: 'legal', payload: { i } });
      const status = (await (
        await fetch(`${p.workflow}/status/${started.workflow_id}`, { headers: { authorization: `Bearer ${admin}` } })
      ).json()) as { version: number };
      let sent = 0;
      let resolveDecided!: () => void;
      let resolveLive!: () => void;
      const decided = new Promise<void>((r) => (resolveDecided = r));
      const live = new Promise<void>((r) => (resolveLive = r));
      const unsubscribe = client.subscribe(
        {
          query:
            'subscription($id: ID!, $after: Int) { workflowStatusChanged(workflowId: $id, afterVersion: $after) { version event } }',
          variables: { id: started.workflow_id, after: status.version - 1 },
        },
        {
          next: (v) => {
            const e = (v.data as { workflowStatusChanged: { event: string } }).workflowStatusChanged.event;
            if (e === 'approval.requested') resolveLive();
            if (e === 'approval.decided' && sent) {
              latencies.push(performance.now() - sent);
              resolveDecided();
            }
          },
          error: (err) => console.error(err),
          complete: () => {},
        },
      );
      await live; // the replayed last transition proves the subscription is live
      sent = performance.now();
      await post(
        `${p.workflow}/approve/${started.approval_task_id}`,
        reviewer,
        { decision: 'approve' },
        { 'x-user-id': 'bob' },
      );
      await decided;
      unsubscribe();
    }
    await client.dispose();
    console.log(
      `subscription latency (POST /approve → approval.decided at a graphql-ws client through the router): ${summary(latencies)}`,
    );
  } finally {
    p.child.kill('SIGTERM');
  }
}
