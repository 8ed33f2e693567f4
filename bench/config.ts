// `npm run bench -- config [seconds] [rounds]`: the config service (issue 30's benchmark) on an ephemeral
// port (in-memory PGlite, or PostgreSQL when DATABASE_URL is set), with stand-ins for the schema
// registry (every content accepted) and the workflow service (a second person approves at once),
// so only config's own work is measured. It prints:
//   - in-process flag evaluation (flagd-core through FlagSet) per second, on this thread, for
//     1,024 users asked again and again (FlagSet's memo answers) and for a new user every call;
//   - cached effective-config reads (CachedConfig, what consumers use): reads/s and p50/p99;
//   - GET /api/config/{tenant}/effective over HTTP at 50 connections, against a Fastify
//     hello-world returning the same JSON in the same run (the issue asks for >= 0.8x), and the
//     main thread's CPU per request for both (bench/thread-cpu.support.ts). The two are measured
//     in `rounds` back-to-back pairs (default 3), the order swapped every round, and every pair's
//     ratio is printed with their median: one pair of 5 s runs on this shared machine moved
//     0.52x-1.12x for the same build minutes apart (docs/benchmarks.md), as the hello-world alone
//     moved 15k-28k req/s;
//   - OFREP single-flag evaluations over HTTP at 50 connections;
//   - propagation from the workflow reporting a promotion approved to 10 cached clients all holding
//     it (the rollout poll, the signed change, config.changed over the in-process bus, each
//     client's re-read), p50/p99 of 20 changes.
// The load generator (autocannon) runs in a worker thread. Numbers only: nothing passes or fails.
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import Fastify from 'fastify';
import { AccessTokens } from '../platform/auth/jwt';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { CachedConfig } from '../platform/clients/config-cache';
import { ConfigClient } from '../platform/clients/config.client';
import type { WorkflowClient } from '../platform/clients/workflow.client';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createEventBus } from '../platform/events/create-event-bus';
import { FlagSet } from '../platform/flags/flag-set';
import { createLogger } from '../platform/logging/logger';
import { registryOf } from '../launcher/registry';
import { defineConfigService } from '../services/config';
import { formatPerRequest, perRequest, threadCpu } from './thread-cpu.support';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
interface Measured {
  result: AutocannonResult;
  cpu: ReturnType<typeof perRequest>;
}
/** One round of the HTTP comparison: /effective and the hello-world, back to back. */
interface HttpPair {
  effective: Measured;
  baseline: Measured;
}
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const FLAGS = {
  flags: {
    'new-checkout': {
      state: 'ENABLED',
      variants: { on: true, off: false },
      defaultVariant: 'off',
      targeting: {
        if: [
          { '===': [{ var: 'plan' }, 'gold'] },
          'on',
          { fractional: [{ cat: [{ var: 'tenantId' }, { var: 'targetingKey' }] }, ['on', 10], ['off', 90]] },
        ],
      },
    },
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Approves every promotion at once as another person; records when it said so (propagation's start). */
function approvingWorkflow() {
  let n = 0;
  const approvedAt = new Map<string, number>();
  const stub: Pick<WorkflowClient, 'execute' | 'status'> = {
    execute: async () => {
      n += 1;
      return { workflow_id: `wf-${n}`, approval_task_id: `task-${n}`, status: 'pending_approval' } as never;
    },
    status: async (_context, workflowId) => {
      if (!approvedAt.has(workflowId)) approvedAt.set(workflowId, performance.now());
      const id = workflowId.slice('wf-'.length);
      return {
        status: 'completed',
        approval_tasks: [
          { approval_task_id: `task-${id}`, status: 'approved', decision: 'approve', reviewer: 'bench-approver' },
        ],
      } as never;
    },
  };
  return { stub, approvedAt };
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10) || 10;
  const rounds = Math.max(1, Number(args[1] ?? 3) || 3);
  const env = {
    ...process.env,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARNING',
    CONFIG_ROLLOUT_POLL_MS: '20',
  } as Record<string, string>;
  const platform = loadPlatformConfig(env);
  const db = await openDatabase(
    platform.database.url ? platform.database : { ...platform.database, pgliteDir: 'memory://' },
  );
  const logger = createLogger(platform.logLevel, 'config');
  const bus = await createEventBus({ onError: () => {} });
  const workflow = approvingWorkflow();
  const service = defineConfigService({
    bus,
    module: { schemas: { check: async () => ({ version: '1.0.0' }) }, workflow: workflow.stub },
  });
  const built = await service.build({ config: platform, db, env, logger, registry: registryOf(), bus });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  await built.start?.();
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  const tokens = new AccessTokens(platform.auth.jwtSecret, 3600);
  const admin = await tokens.issue({
    username: 'bench-admin',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['read', 'write'],
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const until = async (what: () => Promise<boolean> | boolean, label: string) => {
    const deadline = Date.now() + 30_000;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error(`config bench: timed out waiting for ${label}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const step = (what: string) => console.error(`… ${what}`);
  const promoted = async (namespace: string, content: Record<string, unknown>) => {
    const b = await post('/api/config/bundles', { layer: 'tenant', namespace, content });
    const r = await post(`/api/config/rollouts/${b.id}/promote`, {});
    return r.workflow_id as string;
  };
  const clients: CachedConfig[] = [];
  const hello = Fastify({ logger: false });
  try {
    // Content: flags and a settings namespace of a realistic size.
    await promoted('flags', FLAGS);
    const settings = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`key_${i}`, { limit: i, on: i % 2 === 0 }]),
    );
    const lastWf = await promoted('service', settings);
    await until(() => workflow.approvedAt.has(lastWf), 'the approval to be asked for');
    const read = async () =>
      (await fetch(`${url}/api/config/default/effective`, { headers: { authorization: `Bearer ${admin}` } })).text();
    await until(
      async () => (JSON.parse(await read()) as { config: Record<string, unknown> }).config.service !== undefined,
      'the first promotion to apply',
    );
    const body = await read();

    // 1. In-process flag evaluation.
    const flags = new FlagSet(FLAGS);
    const evalSeconds = Math.min(seconds, 3);
    let n = 0;
    const evalEnd = performance.now() + evalSeconds * 1000;
    const t0 = performance.now();
    // CPU time too: on a shared machine the thread gets a fraction of a core, and the issue's
    // figure is per core (the PGlite worker and autocannon are idle here, so this is the thread's).
    const cpu0 = process.cpuUsage();
    while (performance.now() < evalEnd)
      for (let i = 0; i < 1000; i++)
        flags.evaluate('new-checkout', { targetingKey: `u${n++ & 1023}`, tenantId: 'default', plan: 'free' });
    const evalRate = n / ((performance.now() - t0) / 1000);
    const evalCpu = process.cpuUsage(cpu0);
    const evalRatePerCpu = n / ((evalCpu.user + evalCpu.system) / 1e6);
    // The same flag with a new user on every call: no answer is reused from FlagSet's memo, so
    // this is flagd-core's own rate (and the memo's cost of missing).
    let m = 0;
    const missEnd = performance.now() + Math.min(seconds, 2) * 1000;
    const m0 = performance.now();
    const missCpu0 = process.cpuUsage();
    while (performance.now() < missEnd)
      for (let i = 0; i < 1000; i++)
        flags.evaluate('new-checkout', { targetingKey: `new-${m++}`, tenantId: 'default', plan: 'free' });
    const missRate = m / ((performance.now() - m0) / 1000);
    const missCpu = process.cpuUsage(missCpu0);
    const missRatePerCpu = m / ((missCpu.user + missCpu.system) / 1e6);

    step('flag evaluation measured');
    // 2. Cached effective reads (what a consuming service does per request).
    const identity = new ServiceIdentity(platform.auth.jwtSecret, 'bench');
    for (let i = 0; i < 10; i++) {
      const c = new CachedConfig(new ConfigClient(url, identity), { bus, logger, refreshMs: 0 });
      await c.start();
      await c.effective('default');
      clients.push(c);
    }
    const cache = clients[0]!;
    const samples: number[] = [];
    const readEnd = performance.now() + Math.min(seconds, 3) * 1000;
    let reads = 0;
    const r0 = performance.now();
    while (performance.now() < readEnd) {
      const s = performance.now();
      await cache.namespace('default', 'service');
      samples.push(performance.now() - s);
      reads += 1;
    }
    const readRate = reads / ((performance.now() - r0) / 1000);
    samples.sort((a, b) => a - b);

    step('cached reads measured');
    // 3. GET /effective over HTTP vs a Fastify hello-world returning the same JSON.
    hello.get('/effective', async (_req, reply) => reply.type('application/json').send(body));
    await hello.listen({ port: 0, host: '127.0.0.1' });
    const helloUrl = `http://127.0.0.1:${(hello.server.address() as AddressInfo).port}/effective`;
    const load = (opts: Record<string, unknown>) =>
      autocannon({ connections: 50, workers: 1, duration: seconds, ...opts });
    const effOpts = { url: `${url}/api/config/default/effective`, headers: { authorization: `Bearer ${admin}` } };
    // Both servers are on this thread: its CPU per request is each one's own cost (the load
    // generator runs in a worker), steadier than the rates on a shared machine.
    const measured = async (opts: Record<string, unknown>) => {
      const before = threadCpu(process.pid);
      const result = await load(opts);
      return { result, cpu: perRequest(before, threadCpu(process.pid), result.requests.total) };
    };
    await load({ ...effOpts, duration: 2 }); // warm-up
    await load({ url: helloUrl, duration: 2 });
    const pairs: HttpPair[] = [];
    for (let round = 0; round < rounds; round++) {
      // Swapping the order each round keeps a drift of the machine from favouring one side.
      if (round % 2 === 0) {
        const eff = await measured(effOpts);
        const hw = await measured({ url: helloUrl });
        pairs.push({ effective: eff, baseline: hw });
      } else {
        const hw = await measured({ url: helloUrl });
        const eff = await measured(effOpts);
        pairs.push({ effective: eff, baseline: hw });
      }
    }
    const ratioOf = (p: HttpPair) => p.effective.result.requests.average / p.baseline.result.requests.average;
    const byRatio = [...pairs].sort((a, b) => ratioOf(a) - ratioOf(b));
    const medianPair = byRatio[Math.floor((byRatio.length - 1) / 2)]!;
    const { result: effective, cpu: effectiveCpu } = medianPair.effective;
    const { result: baseline, cpu: baselineCpu } = medianPair.baseline;

    step('HTTP effective and baseline measured');
    // 4. OFREP single-flag evaluation over HTTP.
    const ofrep = await load({
      url: `${url}/ofrep/v1/evaluate/flags/new-checkout`,
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { targetingKey: 'u1', plan: 'free' } }),
    });

    step('OFREP measured');
    // 5. Propagation: approved → every one of the 10 cached clients holds the new change.
    const lags: number[] = [];
    let propagation = '';
    try {
      for (let i = 0; i < 20; i++) {
        const before = cache.peek('default')!.seq;
        const wf = await promoted('service', { ...settings, round: i });
        await until(() => clients.every((c) => (c.peek('default')?.seq ?? 0) > before), 'every client updated');
        lags.push(performance.now() - workflow.approvedAt.get(wf)!);
      }
    } catch (err) {
      // Say where it stopped: the service's own answer against the clients' copies.
      const served = (JSON.parse(await read()) as { seq: number }).seq;
      const held = clients.map((c) => c.peek('default')?.seq ?? 0);
      propagation = `stopped after ${lags.length} changes (${(err as Error).message}): the service answers seq ${served}, the clients hold ${[...new Set(held)].join(', ')}`;
    }
    lags.sort((a, b) => a - b);

    console.log(
      `config benchmark — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${db.description}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`effective configuration answered: ${fmt(Buffer.byteLength(body))} bytes (with provenance)`);
    console.log(
      `in-process flag evaluation (flagd-core, JSON Logic + fractional), 1,024 users, one thread: ${fmt(evalRate)} evaluations/s (${fmt(evalRatePerCpu)} per CPU-second)`,
    );
    console.log(
      `in-process flag evaluation, a new user every call (no memo hit): ${fmt(missRate)} evaluations/s (${fmt(missRatePerCpu)} per CPU-second)`,
    );
    console.log(
      `cached effective reads (CachedConfig.namespace): ${fmt(readRate)} reads/s, p50 ${fmt(percentile(samples, 50) * 1000, 2)} µs, p99 ${fmt(percentile(samples, 99) * 1000, 2)} µs`,
    );
    pairs.forEach((p, i) =>
      console.log(
        `round ${i + 1} of ${rounds}: /effective ${fmt(p.effective.result.requests.average)} req/s, hello-world ${fmt(p.baseline.result.requests.average)} req/s → ${fmt(ratioOf(p), 2)}x; main-thread CPU /effective ${formatPerRequest(p.effective.cpu)}, hello-world ${formatPerRequest(p.baseline.cpu)}`,
      ),
    );
    console.log(`the median round's figures (${rounds} rounds of ${seconds}s per side):`);
    console.log(
      `GET /api/config/default/effective, 50 connections, ${seconds}s: ${fmt(effective.requests.average)} req/s, p50 ${effective.latency.p50} ms, p99 ${effective.latency.p99} ms, non-2xx ${effective.non2xx}, errors ${effective.errors}`,
    );
    console.log(
      `Fastify hello-world, same JSON, same run: ${fmt(baseline.requests.average)} req/s, p50 ${baseline.latency.p50} ms, p99 ${baseline.latency.p99} ms → ratio ${fmt(effective.requests.average / baseline.requests.average, 2)}x (median of ${rounds}; all: ${pairs.map((p) => fmt(ratioOf(p), 2)).join(', ')})`,
    );
    console.log(
      `main-thread CPU: /effective ${formatPerRequest(effectiveCpu)}; hello-world ${formatPerRequest(baselineCpu)}`,
    );
    console.log(
      `POST /ofrep/v1/evaluate/flags/new-checkout, 50 connections, ${seconds}s: ${fmt(ofrep.requests.average)} evaluations/s, p50 ${ofrep.latency.p50} ms, p99 ${ofrep.latency.p99} ms, non-2xx ${ofrep.non2xx}`,
    );
    console.log(
      `propagation, approved → 10 cached clients updated (config.changed, in-process bus), ${lags.length} changes: p50 ${fmt(percentile(lags, 50), 1)} ms, p99 ${fmt(percentile(lags, 99), 1)} ms (includes the rollout poll, CONFIG_ROLLOUT_POLL_MS=20)${propagation ? `; ${propagation}` : ''}`,
    );
  } finally {
    for (const c of clients) await c.stop();
    await hello.close();
    await built.stop?.();
    await built.app.close();
    await bus.close();
    await db.close();
  }
}
