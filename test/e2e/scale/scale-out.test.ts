// Scale-out as an operator runs it (issue 16), on PostgreSQL + NATS + Redis (skipped unless
// DATABASE_URL, NATS_URL and REDIS_URL are set, like the other multi-process suites): the real
// `npm run deploy:local` launcher (launcher/deploy-local.ts) starts identity, two ledger processes
// and two gateways as separate processes behind nginx with the generated config; every process
// reaches the others through the balancer. Concurrent appends through both gateways make one valid
// chain with no gaps; a kill -9 of one ledger under load loses no acknowledged append and traffic
// fails over to the other; subscriptions held on either gateway see every committed event (resuming
// with afterSeq when the ledger process behind them died).
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import { connect } from 'nats';
import WebSocket from 'ws';
import { AccessTokens } from '../../../platform/auth/jwt';
import { streamNames } from '../../../platform/config/platform.config';
import { deployLocal, type Deployment, type PlannedService } from '../../../launcher/deploy-local';
import { manifestOf } from '../../../launcher/registry';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { freePort, until } from '../../support/waiting';

jest.setTimeout(600_000);

const ROOT = path.join(__dirname, '../../..');
const ready = process.env.DATABASE_URL && process.env.NATS_URL && process.env.REDIS_URL;
const SECRET = 'scale-out-test-secret-that-is-long-enough-012345';
const TENANT = 'scale';
const NAMESPACE = `scale${process.pid}`;

(ready ? describe : describe.skip)('two ledgers and two gateways behind nginx', () => {
  let db: TestDatabase;
  let deployment: Deployment | undefined;
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const plan: PlannedService[] = [];
    for (const [name, n] of [
      ['identity', 1],
      ['ledger', 2],
      ['gateway', 2],
    ] as const) {
      plan.push({
        manifest: manifestOf(name),
        listenPort: await freePort(),
        processPorts: await Promise.all(Array.from({ length: n }, () => freePort())),
      });
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: db.config.url,
      JWT_SECRET_KEY: SECRET,
      NODE_ENV: 'test',
      LOG_LEVEL: 'ERROR',
      PLATFORM_NAMESPACE: NAMESPACE,
      LEDGER_NOTICE_POLL_MS: '100',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
    };
    delete env.PGLITE_DIR;
    deployment = await deployLocal({
      env,
      plan,
      workDir: undefined,
      onLog: () => {},
      // As CI runs the sources (no build): the same start-one entry point through the TypeScript runner.
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
    token = await new AccessTokens(SECRET, 3600).issue({
      username: 'scaler',
      tenantId: TENANT,
      roles: ['admin'],
      scopes: ['read', 'write'],
    });
  });

  const subscribers: { stop(): void }[] = [];

  afterAll(async () => {
    for (const s of subscribers) s.stop();
    for (const c of clients) await Promise.resolve(c.dispose()).catch(() => {});
    await deployment?.stop().catch(() => {});
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await db?.drop().catch(() => {});
    const nc = await connect({ servers: process.env.NATS_URL!.replace(/^nats:\/\//, '') }).catch(() => undefined);
    if (nc) {
      await (await nc.jetstreamManager()).streams.delete(streamNames(NAMESPACE).stream).catch(() => false);
      await nc.drain();
    }
  });

  const gatewayProcesses = () =>
    deployment!.processes.filter((p) => p.name === 'gateway').map((p) => `http://127.0.0.1:${p.port}`);

  /** Appends through `base` (a gateway); a 502/503 (the process behind died mid-request) is retried with the same idempotency key. */
  async function append(base: string, n: number, stats: { retried: number }): Promise<string> {
    const key = randomUUID();
    for (let attempt = 0; attempt < 20; attempt++) {
      const r = await fetch(`${base}/api/v1/ledger/append`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: TENANT, event_type: 'scale', event_data: { n }, idempotency_key: key }),
      }).catch(() => undefined);
      if (r?.status === 200) return ((await r.json()) as { id: string }).id;
      if (r && r.status !== 502 && r.status !== 503 && r.status !== 504)
        throw new Error(`append answered ${r.status}: ${await r.text()}`);
      stats.retried++;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('append never succeeded');
  }

  /** A subscriber on one gateway that resumes after the last seq it saw whenever its stream ends. */
  function subscriber(gateway: string) {
    const seen = new Set<number>();
    let duplicates = 0;
    let last = 0;
    const client = createClient({
      url: `${gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 1000,
      retryWait: async () => new Promise((r) => setTimeout(r, 200)),
      shouldRetry: () => true,
    });
    clients.push(client);
    let stopped = false;
    const start = () => {
      if (stopped) return;
      client.subscribe<{ ledgerEventAppended: { seq: number } }>(
        {
          query: 'subscription($after: Int) { ledgerEventAppended(afterSeq: $after) { seq } }',
          variables: { after: last },
        },
        {
          next: (v) => {
            const seq = v.data?.ledgerEventAppended.seq;
            if (seq === undefined) return;
            if (seen.has(seq)) duplicates++;
            seen.add(seq);
            last = Math.max(last, seq);
          },
          error: () => setTimeout(start, 200),
          complete: () => setTimeout(start, 200),
        },
      );
    };
    start();
    const sub = { seen, duplicates: () => duplicates, stop: () => void (stopped = true) };
    subscribers.push(sub);
    return sub;
  }

  /** The tenant's chain as stored: event id -> seq. */
  async function chain(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let offset = 0; ; offset += 1000) {
      const r = await fetch(
        `${deployment!.urls.gateway}/api/v1/ledger/events?tenant_id=${TENANT}&limit=1000&offset=${offset}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(r.status).toBe(200);
      const page = ((await r.json()) as { events: { id: string; seq: number }[] }).events;
      for (const e of page) out.set(e.id, e.seq);
      if (page.length < 1000) return out;
    }
  }

  async function verify(): Promise<{ valid: boolean; count: number }> {
    const r = await fetch(`${deployment!.urls.gateway}/api/v1/ledger/verify?tenant_id=${TENANT}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(200);
    const body = (await r.json()) as {
      valid?: boolean;
      is_valid?: boolean;
      total_events?: number;
      events_checked?: number;
    };
    return { valid: Boolean(body.valid ?? body.is_valid), count: Number(body.total_events ?? body.events_checked) };
  }

  it('keeps one chain, loses no acknowledged append across a kill -9, and feeds subscribers on both gateways', async () => {
    const [gwA, gwB] = gatewayProcesses();
    const subs = [subscriber(gwA!), subscriber(gwB!)];
    const stats = { retried: 0 };
    const acked: string[] = [];

    // 1. Concurrent appends through both gateways (10 at a time on each).
    const burst = async (base: string, count: number, from: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < count) acked.push(await append(base, from + next++, stats));
        }),
      );
    };
    await Promise.all([burst(gwA!, 150, 0), burst(gwB!, 150, 1000)]);
    expect(stats.retried).toBe(0);
    expect(new Set(acked).size).toBe(300);
    const first = await chain();
    expect([...first.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1)); // no gaps, no forks
    expect(acked.every((id) => first.has(id))).toBe(true);

    // 2. Load through the gateways' balancer; kill -9 one ledger process in the middle.
    const balancer = deployment!.urls.gateway!;
    let stop = false;
    const afterKill: string[] = [];
    let killed = false;
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const id = await append(balancer, 10_000 + w * 1000 + i, stats);
          acked.push(id);
          if (killed) afterKill.push(id);
        }
      }),
    );
    await until(() => acked.length >= 400, '100 appends under load', { tries: 6000, everyMs: 50 });
    const victim = deployment!.processes.find((p) => p.name === 'ledger')!;
    victim.child.kill('SIGKILL');
    killed = true;
    await until(() => afterKill.length >= 150, '150 appends after the kill', { tries: 6000, everyMs: 50 });
    stop = true;
    await load;

    // Every acknowledged append is in the one valid chain, which has no gaps.
    const total = acked.length;
    expect(new Set(acked).size).toBe(total);
    const { valid, count } = await verify();
    expect(valid).toBe(true);
    expect(count).toBe(total);
    const stored = await chain();
    expect(acked.filter((id) => !stored.has(id))).toEqual([]); // 0 acknowledged appends lost
    expect([...stored.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    // Failover: the balancer and the idempotent client retry carried the load past the dead process.
    process.stdout.write(
      `scale-out: ${total} appends, ${stats.retried} client retries (502/503 while a ledger died)\n`,
    );

    // 3. Both subscribers saw every committed event, each once.
    await until(() => subs.every((s) => s.seen.size === total), `both subscribers to see ${total} events`, {
      tries: 6000,
      everyMs: 50,
    });
    for (const s of subs) {
      s.stop();
      expect(s.duplicates()).toBe(0);
    }
  });
});
