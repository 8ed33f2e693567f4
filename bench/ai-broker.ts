// `npm run bench -- ai-broker [seconds] [calls]`: the AI broker's overhead and throughput, and
// its redaction's speed and accuracy. Prints numbers; passes or fails on nothing.
// PGlite in memory, or PostgreSQL when DATABASE_URL is set (a database of its own: rows are added).
//  1. Overhead: `calls` sequential inferences through the broker (HTTP in, auth, redaction of
//     prompt and answer, routing, the vendor SDK, the usage row and ledger events committed in
//     one group-commit statement before the answer, HTTP out) against a zero-latency OpenAI-format stand-in, next to the same
//     request sent to the stand-in directly; p50 and p99 of both and of the difference.
//  2. Requests/s at 50 connections (autocannon) for `seconds`, and the broker's overhead AT that
//     concurrency (issue 35 item 6), two ways: (a) the broker's latency p50 minus the stand-in's
//     own p50 under the same 50 connections (the stand-in loaded directly right after); (b) per
//     request, the time inside the broker's HTTP server minus the time its vendor call took
//     (measured with Node's HTTP diagnostics channels, bench/server-time.support.ts).
//  The stand-in runs on a worker thread (bench/vendor-thread.support.ts): a real vendor is another
//  machine, so the broker's main thread carries the broker's work only.
//  3. Redaction throughput (MB/s) of the broker's redactor (five built-in categories) over the
//     labelled set's sentences, and precision/recall per category on the labelled set.
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { registryOf } from '../launcher/registry';
import { AccessTokens } from '../platform/auth/jwt';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createMemoryEventBus } from '../platform/events/memory-event-bus';
import { createLogger } from '../platform/logging/logger';
import { createRedactor, EXTENDED_DETECTORS, mask, redactText } from '../platform/redaction';
import { defineAiBrokerService } from '../services/ai-broker';
import { evaluate, loadLabelledSet } from '../test/fixtures/pii/pii-evaluation';
import { cpuPerRequest, mainThreadCpuSeconds } from './main-thread-cpu.support';
import { measureServerTime } from './server-time.support';
import { startVendorThread } from './vendor-thread.support';

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const PROMPT =
  'Summarise the approval rule for wire transfers above 10,000 USD for the customer jane.doe@example.com (SSN 487-65-4320) in two sentences.';

async function timed(n: number, once: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await once();
    out.push(performance.now() - t);
  }
  return out.sort((a, b) => a - b);
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  const calls = Number(args[1] ?? 2000);
  const vendor = await startVendorThread('openai', 'Transfers above 10,000 USD need a second approver.');
  const env = {
    LOG_LEVEL: 'ERROR',
    JWT_SECRET_KEY: 'bench-secret-that-is-long-enough-for-hs256-0123456789',
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: vendor.url,
    AI_TENANT_REQUESTS_PER_MINUTE: '100000000',
    AI_HEALTH_PROBE_SECONDS: '3600',
  };
  const config = loadPlatformConfig(env);
  const db = await openDatabase({ url: process.env.DATABASE_URL, pgliteDir: 'memory://', poolSize: 10 });
  const bus = createMemoryEventBus();
  const built = await defineAiBrokerService().build({
    config,
    db,
    env,
    bus,
    logger: createLogger('ERROR', 'ai-broker'),
    registry: registryOf(),
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  await built.start?.();
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
  const token = await new AccessTokens(config.auth.jwtSecret, 3600).issue({
    username: 'bench',
    tenantId: 'bench',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  const brokerBody = JSON.stringify({ prompt: PROMPT, model: 'gpt-3.5-turbo', max_tokens: 64 });
  const vendorBody = JSON.stringify({
    model: 'gpt-3.5-turbo',
    max_tokens: 64,
    messages: [{ role: 'user', content: PROMPT }],
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  console.log(
    `AI broker bench (Node ${process.version}, ${db.description}, zero-latency OpenAI-format stand-in; audit rows group-committed, each answer after its rows commit)`,
  );
  try {
    const viaBroker = () =>
      fetch(`${url}/api/ai/inference`, { method: 'POST', headers, body: brokerBody }).then(async (r) => {
        if (r.status !== 200) throw new Error(`broker answered ${r.status}: ${await r.text()}`);
        await r.arrayBuffer();
      });
    const direct = () =>
      fetch(`${vendor.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
        body: vendorBody,
      })
        .then((r) => r.arrayBuffer())
        .then(() => undefined);
    await timed(200, viaBroker);
    await timed(200, direct);
    const b = await timed(calls, viaBroker);
    const d = await timed(calls, direct);
    console.log(`\n1. Per call, ${fmt(calls)} sequential calls (ms)`);
    console.log('   | path | p50 | p99 |');
    console.log('   |---|---|---|');
    console.log(`   | stand-in directly (fetch) | ${fmt(quantile(d, 0.5), 3)} | ${fmt(quantile(d, 0.99), 3)} |`);
    console.log(`   | through the broker | ${fmt(quantile(b, 0.5), 3)} | ${fmt(quantile(b, 0.99), 3)} |`);
    console.log(
      `   | broker overhead (difference) | ${fmt(quantile(b, 0.5) - quantile(d, 0.5), 3)} | ${fmt(quantile(b, 0.99) - quantile(d, 0.99), 3)} |`,
    );
    console.log(
      '   One caller at a time shares no commit: each sequential call waits for a commit of its own (docs/ai-broker.md, "Measured").',
    );

    // The load generator in a worker thread, so it does not share the broker's event loop, and
    // the broker's CPU per request from its main thread alone.
    const fifty = (target: string, requestHeaders: Record<string, string>, body: string, duration: number) =>
      autocannon({ url: target, method: 'POST', headers: requestHeaders, body, connections: 50, workers: 1, duration });
    const cpuBefore = mainThreadCpuSeconds();
    const load = await fifty(`${url}/api/ai/inference`, headers, brokerBody, seconds);
    const cpu = cpuPerRequest(cpuBefore, mainThreadCpuSeconds(), load.requests.total);
    // Then, apart (its async-context tracking costs CPU of its own), the time inside the broker per
    // request, and the stand-in alone under the same 50 connections.
    const probeSeconds = Math.min(seconds, 4);
    const serverTime = measureServerTime(built.app.server);
    const probed = await fifty(`${url}/api/ai/inference`, headers, brokerBody, probeSeconds);
    serverTime.stop();
    const vendorLoad = await fifty(
      `${vendor.url}/chat/completions`,
      { authorization: 'Bearer sk-bench', 'content-type': 'application/json' },
      vendorBody,
      probeSeconds,
    );
    console.log(
      `\n2. 50 connections for ${seconds} s: ${fmt(load.requests.average)} requests/s (p50 ${fmt(load.latency.p50)} ms, p99 ${fmt(load.latency.p99)} ms), non-2xx ${load.non2xx}, errors ${load.errors}; main-thread CPU ${cpu} per request (the broker alone: the stand-in is on its own thread; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
    const inServer = serverTime.samples.map(([t]) => t).sort((a, b) => a - b);
    const own = serverTime.samples.map(([t, v]) => t - v).sort((a, b) => a - b);
    const onVendor = serverTime.samples.map(([, v]) => v).sort((a, b) => a - b);
    console.log(
      `   Overhead at 50 connections, ${probeSeconds} s more each (ms; ${fmt(own.length)} requests timed inside the broker, ${fmt(probed.requests.average)} requests/s while timed):`,
    );
    console.log('   | figure | p50 | p99 |');
    console.log('   |---|---|---|');
    console.log(
      `   | stand-in directly, 50 connections (${fmt(vendorLoad.requests.average)} req/s) | ${fmt(vendorLoad.latency.p50, 2)} | ${fmt(vendorLoad.latency.p99, 2)} |`,
    );
    console.log(
      `   | (a) broker latency (timed run) minus the stand-in's | ${fmt(probed.latency.p50 - vendorLoad.latency.p50, 2)} | ${fmt(probed.latency.p99 - vendorLoad.latency.p99, 2)} |`,
    );
    console.log(
      `   | time inside the broker's server | ${fmt(quantile(inServer, 0.5), 2)} | ${fmt(quantile(inServer, 0.99), 2)} |`,
    );
    console.log(
      `   | of which the vendor call | ${fmt(quantile(onVendor, 0.5), 2)} | ${fmt(quantile(onVendor, 0.99), 2)} |`,
    );
    console.log(
      `   | (b) inside the broker, without the vendor call | ${fmt(quantile(own, 0.5), 2)} | ${fmt(quantile(own, 0.99), 2)} |`,
    );
    console.log(
      `   Targets (issue 35 item 6): >= 2,000 requests/s ${load.requests.average >= 2000 ? 'met' : 'NOT met'}; overhead p50 <= 1 ms at 50 connections (b) ${quantile(own, 0.5) <= 1 ? 'met' : 'NOT met'}`,
    );
  } finally {
    await built.stop?.();
    await built.app.close();
    await vendor.close();
    await bus.close();
    await db.close();
  }

  const items = loadLabelledSet();
  const text = items.map((i) => i.text).join('\n');
  const corpus = text.repeat(Math.ceil((4 * 1024 * 1024) / text.length));
  const megabytes = Buffer.byteLength(corpus) / 1024 / 1024;
  const broker = createRedactor({ detectors: EXTENDED_DETECTORS, strategies: { mask } });
  broker.redactText(corpus.slice(0, 100_000));
  let t = performance.now();
  broker.redactText(corpus);
  const brokerRate = megabytes / ((performance.now() - t) / 1000);
  t = performance.now();
  redactText(corpus);
  const defaultRate = megabytes / ((performance.now() - t) / 1000);
  console.log(
    `\n3. Redaction of ${fmt(megabytes, 1)} MB of labelled sentences: broker redactor (5 categories) ${fmt(brokerRate, 1)} MB/s; default redactor (4 categories, validation's) ${fmt(defaultRate, 1)} MB/s`,
  );
  const e = evaluate(EXTENDED_DETECTORS, items);
  console.log(
    `\n   Labelled set: ${items.length} sentences, ${items.filter((i) => i.pii.length === 0).length} without PII (near-misses)`,
  );
  console.log('   | category | labelled | found | false positives | precision | recall |');
  console.log('   |---|---|---|---|---|---|');
  for (const [c, s] of Object.entries(e.perCategory).sort()) {
    console.log(
      `   | ${c} | ${s.truePositives + s.falseNegatives} | ${s.truePositives} | ${s.falsePositives} | ${fmt(s.precision, 3)} | ${fmt(s.recall, 3)} |`,
    );
  }
  console.log(
    `   | overall | ${e.overall.truePositives + e.overall.falseNegatives} | ${e.overall.truePositives} | ${e.overall.falsePositives} | ${fmt(e.overall.precision, 3)} | ${fmt(e.overall.recall, 3)} |`,
  );
  for (const m of e.mistakes) console.log(`   ${m.kind} ${m.category}: "${m.span}" in "${m.text}"`);
}
