// `npm run bench -- frontend [subscribers]`: the platform as `npm start` runs it (every service in
// one child process, embedded PGlite in a temporary directory unless DATABASE_URL), driven from
// this process the way a frontend drives it: Apollo Client 4 over HTTP and graphql-ws through the
// router. Prints:
//   - query latency p50/p95 (Apollo Client, network-only, a page of ledger events with each
//     event's user from identity: a cross-subgraph query), sequential;
//   - subscription handshake: client created -> connection_ack, and subscribe -> first event for a
//     subscription resuming one event back (the whole path through the router to the ledger and
//     back), through the router and straight to the ledger subgraph;
//   - subscription delivery latency: from the append's HTTP answer (the event is committed) to
//     the event at a graphql-ws client through the router, p50/p95;
//   - idle subscribers: N graphql-ws connections through the router (one subscription each; N
//     defaults to 5,000, see docs/benchmarks.md for why not 10,000 on these machines) and the
//     platform process's RSS before and after, per subscriber; then 10,000 subscriptions over 100
//     connections.
// Numbers only: nothing here passes or fails on time.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { freePortPair } from './frontend.support';

const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${fmt(pct(s, 0.5), 2)} ms, p95 ${fmt(pct(s, 0.95), 2)} ms (n=${s.length})`;
};

interface Running {
  child: ChildProcess;
  gateway: string;
  ledger: string;
  dataDir: string;
}

async function startPlatformProcess(): Promise<Running> {
  const [gatewayPort, identityPort, ledgerPort] = await freePortPair(3);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-frontend-'));
  const env = {
    ...process.env,
    GATEWAY_PORT: String(gatewayPort),
    IDENTITY_PORT: String(identityPort),
    LEDGER_PORT: String(ledgerPort),
    PGLITE_DIR: dataDir,
    LOG_LEVEL: 'WARNING',
    NODE_ENV: 'development',
    // The bench signs in as the dev admin with a password alone (no second factor to answer here).
    IDENTITY_MFA_REQUIRED_ROLES: 'none',
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
  return { child, gateway: `http://127.0.0.1:${gatewayPort}`, ledger: `http://127.0.0.1:${ledgerPort}`, dataDir };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

async function login(gateway: string): Promise<string> {
  const res = await fetch(`${gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { login(username: "admin", password: "admin-dev-password") { accessToken } }',
    }),
  });
  return ((await res.json()) as { data: { login: { accessToken: string } } }).data.login.accessToken;
}

async function append(ledger: string, token: string, n: number, eventType = 'bench_fe'): Promise<void> {
  const res = await fetch(`${ledger}/append`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: 'default', event_type: eventType, event_data: { n }, user_id: 'admin' }),
  });
  if (res.status !== 200) throw new Error(`append answered ${res.status}`);
  await res.arrayBuffer();
}

/** User + system CPU time the process has used, all threads (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** File descriptors the process holds (sockets included), or -1 where /proc is not there. */
function openFiles(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return -1;
  }
}

const ws = (url: string, token: string): Client =>
  createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
const SUBSCRIPTION =
  'subscription($after: Int) { ledgerEventAppended(eventType: "bench_fe", afterSeq: $after) { seq eventData } }';
/** Any event type: resuming one event back replays the chain's head, whatever it is (identity's audit events land there too). */
const RESUME_ONE = 'subscription($after: Int) { ledgerEventAppended(afterSeq: $after) { seq } }';

async function position(gateway: string, token: string): Promise<number> {
  const res = await fetch(`${gateway}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"query":"{ ledgerPosition { seq } }"}',
  });
  return ((await res.json()) as { data: { ledgerPosition: { seq: number } } }).data.ledgerPosition.seq;
}

async function handshake(
  url: string,
  token: string,
  samples: number,
): Promise<{ ack: number[]; firstEvent: number[] }> {
  const ack: number[] = [];
  const firstEvent: number[] = [];
  for (let i = 0; i < samples; i++) {
    const head = await position(url, token).catch(async () => -1);
    const t0 = performance.now();
    const client = createClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    client.on('connected', () => ack.push(performance.now() - t0));
    await new Promise<void>((resolve, reject) => {
      const t1 = performance.now();
      client.subscribe(
        { query: RESUME_ONE, variables: { after: Math.max(0, head - 1) } },
        {
          next: () => {
            firstEvent.push(performance.now() - t1);
            resolve();
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    await client.dispose();
  }
  return { ack, firstEvent };
}

export async function run(args: string[]): Promise<void> {
  // `--fanout-only` skips to the 10,000 subscriptions over 100 connections (the issue 35 item 7 figure).
  const fanOutOnly = args.includes('--fanout-only');
  const subscribers = Number(args.find((a) => !a.startsWith('--')) ?? 5000);
  const p = await startPlatformProcess();
  try {
    const token = await login(p.gateway);
    for (let i = 0; i < 50; i++) await append(p.ledger, token, i);
    console.log(
      `platform: one process (pid ${p.child.pid}), ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; clients in this process; load average ${os
        .loadavg()
        .map((l) => fmt(l, 2))
        .join(' ')}`,
    );
    if (!fanOutOnly) await frontendFigures(p, token, subscribers);
    await fanOut(p, token);
  } finally {
    p.child.kill('SIGTERM');
    await new Promise((r) => p.child.once('exit', r));
    fs.rmSync(p.dataDir, { recursive: true, force: true });
  }
}

async function frontendFigures(p: Running, token: string, subscribers: number): Promise<void> {
  {
    // Queries through Apollo Client.
    const apollo = new ApolloClient({
      link: new HttpLink({ uri: `${p.gateway}/graphql`, headers: { authorization: `Bearer ${token}` }, fetch }),
      cache: new InMemoryCache(),
    });
    const query = gql`
      query Page {
        ledgerEvents(first: 10) {
          nodes {
            id
            seq
            eventType
            user {
              id
              username
              isActive
            }
          }
        }
      }
    `;
    for (let i = 0; i < 100; i++) await apollo.query({ query, fetchPolicy: 'network-only' });
    const q: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      await apollo.query({ query, fetchPolicy: 'network-only' });
      q.push(performance.now() - t);
    }
    console.log(`query (Apollo Client, ledger page + users from identity): ${stats(q)}`);

    // Handshake.
    const viaRouter = await handshake(p.gateway, token, 100);
    const direct = await handshake(p.ledger, token, 100);
    console.log(
      `handshake through the router: connection_ack ${stats(viaRouter.ack)}; subscribe -> first (replayed) event ${stats(viaRouter.firstEvent)}`,
    );
    console.log(
      `handshake straight to the ledger: connection_ack ${stats(direct.ack)}; subscribe -> first (replayed) event ${stats(direct.firstEvent)}`,
    );

    // Delivery latency: append answered -> event at the client.
    const client = ws(p.gateway, token);
    const arrivals = new Map<number, number>();
    let waiting: ((n: number) => void) | undefined;
    const from = await position(p.gateway, token);
    client.subscribe<{ ledgerEventAppended: { eventData: { n: number } } }>(
      { query: SUBSCRIPTION, variables: { after: from } },
      {
        next: (r) => {
          const n = r.data!.ledgerEventAppended.eventData.n;
          arrivals.set(n, performance.now());
          waiting?.(n);
        },
        error: () => {},
        complete: () => {},
      },
    );
    const delivery: number[] = [];
    for (let n = 1000; n < 1500; n++) {
      const got = new Promise<number>((resolve) => (waiting = resolve));
      await append(p.ledger, token, n);
      const answered = performance.now();
      await got;
      delivery.push(arrivals.get(n)! - answered);
    }
    await client.dispose();
    console.log(`subscription delivery (append answered -> client, through the router): ${stats(delivery.slice(50))}`);

    // Idle subscribers.
    const before = rssMiB(p.child.pid!);
    const clients: Client[] = [];
    let live = 0;
    for (let i = 0; i < subscribers; i++) {
      const c = ws(p.gateway, token);
      clients.push(c);
      c.subscribe(
        { query: 'subscription { ledgerEventAppended(eventType: "never") { seq } }' },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
      c.on('connected', () => (live += 1));
      if (i % 200 === 199) await new Promise((r) => setTimeout(r, 50));
    }
    // Connections that have not been acknowledged 30 s after the last was opened are reported, not awaited.
    for (let waited = 0; live < subscribers && waited < 300; waited++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 2000));
    const after = rssMiB(p.child.pid!);
    console.log(
      `idle subscribers: ${live} of ${subscribers} connections acknowledged, 1 subscription each: platform RSS ${fmt(before, 0)} -> ${fmt(after, 0)} MiB, ${fmt(((after - before) * 1024) / Math.max(1, live), 1)} KiB per subscriber (router + ledger; one caller's connections share one upstream socket per subgraph)`,
    );
    // A client whose socket the server already reset rejects its dispose(): that ends it too.
    await Promise.allSettled(clients.map((c) => c.dispose()));
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** 10,000 subscriptions over 100 connections of one caller, then one event that must reach each. */
async function fanOut(p: Running, token: string): Promise<void> {
  const base = rssMiB(p.child.pid!);
  const fdsBase = openFiles(p.child.pid!);
  const shared: Client[] = [];
  for (let i = 0; i < 100; i++) shared.push(ws(p.gateway, token));
  const total = 10_000;
  let subscribed = 0;
  let probeAt = 0;
  const reached: number[] = [];
  const errors = new Map<string, number>();
  for (let i = 0; i < total; i++) {
    shared[i % 100]!.subscribe(
      { query: 'subscription { ledgerEventAppended(eventType: "bench_probe") { seq } }' },
      {
        next: () => reached.push(performance.now() - probeAt),
        error: (err) => {
          const text = errorText(err);
          errors.set(text, (errors.get(text) ?? 0) + 1);
        },
        complete: () => {},
      },
    );
    subscribed += 1;
    if (i % 500 === 499) await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 3000));
  const multiplexed = rssMiB(p.child.pid!);
  const fds = openFiles(p.child.pid!);
  // Proof they hold: one probe event must reach every one of them.
  const cpuBefore = cpuMs(p.child.pid!);
  probeAt = performance.now();
  await append(p.ledger, token, 0, 'bench_probe');
  for (let waited = 0; reached.length < subscribed && waited < 300; waited++)
    await new Promise((r) => setTimeout(r, 100));
  const cpu = cpuMs(p.child.pid!) - cpuBefore;
  const failed = [...errors.values()].reduce((a, b) => a + b, 0);
  const s = [...reached].sort((a, b) => a - b);
  const spread = s.length
    ? `p50 ${fmt(pct(s, 0.5), 0)} ms, p99 ${fmt(pct(s, 0.99), 0)} ms, max ${fmt(s[s.length - 1]!, 0)} ms`
    : 'none';
  console.log(
    `idle subscriptions: ${subscribed} over 100 connections: platform RSS ${fmt(base, 0)} -> ${fmt(multiplexed, 0)} MiB, ${fmt(((multiplexed - base) * 1024) / subscribed, 1)} KiB per subscription; open files ${fdsBase} -> ${fds}`,
  );
  console.log(
    `one event (append answered -> each subscription): reached ${reached.length} of ${subscribed} (${spread}); ${failed} errored; platform CPU ${fmt(cpu, 0)} ms for it; load average ${os
      .loadavg()
      .map((l) => fmt(l, 2))
      .join(' ')}`,
  );
  for (const [text, n] of errors) console.log(`  ${n} x ${text}`);
  await Promise.allSettled(shared.map((c) => c.dispose()));
}

/** What a graphql-ws subscription error says: GraphQL errors, a close event, or an Error. */
function errorText(err: unknown): string {
  if (Array.isArray(err)) return err.map((e: { message?: string }) => e.message).join('; ');
  const close = err as { code?: number; reason?: string; message?: string };
  if (typeof close?.code === 'number') return `closed ${close.code} ${close.reason ?? ''}`;
  return close?.message ?? String(err);
}
