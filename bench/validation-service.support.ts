// The `/validate` half of `npm run bench -- validation`: the rule-pack registry and the
// validation service in this process (PGlite in memory, or DATABASE_URL), a 50-rule pack
// submitted, reviewed and certified through the registry's REST routes, then POST /validate with
// that pack id and one record per request at 50 connections (autocannon). Every request is a
// registry pack from the validation service's cache (signature checked once), one engine run, and
// one outbox row committed for the ledger: the path a real caller takes.
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { ACR, AMR } from '../platform/auth/mfa';
import { AccessTokens } from '../platform/auth/jwt';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { processBus } from '../platform/events/service-bus';
import { createLogger } from '../platform/logging/logger';
import { registryOf } from '../launcher/registry';
import { rulePackRegistryService } from '../services/rulepack-registry';
import { validationService } from '../services/validation';
import { cpuPerRequest, mainThreadCpuSeconds } from './main-thread-cpu.support';

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
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

export async function measureValidateRoute(
  pack: { metadata: Record<string, unknown>; rules: unknown[] },
  record: unknown,
  seconds: number,
): Promise<void> {
  const env = {
    ...process.env,
    LOG_LEVEL: 'ERROR',
    JWT_SECRET_KEY: 'bench-secret-that-is-long-enough-for-hs256-0123456789',
  };
  const config = loadPlatformConfig(env);
  const db = await openDatabase(config.database.url ? config.database : { ...config.database, pgliteDir: 'memory://' });
  const logger = createLogger('ERROR', 'bench');
  const bus = await processBus({ config, db, logger });
  const tokens = new AccessTokens(config.auth.jwtSecret, 3600);
  const author = await tokens.issue({
    username: 'bench-author',
    tenantId: 'bench',
    roles: ['admin'],
    scopes: ['read', 'write', 'admin'],
    // Certifying is a sensitive action: the author and the reviewer signed in with a second factor.
    amr: [AMR.password, AMR.oneTimeCode],
    acr: ACR.multiFactor,
  });
  const reviewer = await tokens.issue({
    username: 'bench-reviewer',
    tenantId: 'bench',
    roles: ['reviewer'],
    scopes: ['read', 'write'],
    amr: [AMR.password, AMR.oneTimeCode],
    acr: ACR.multiFactor,
  });
  const caller = await tokens.issue({
    username: 'bench-caller',
    tenantId: 'bench-runner',
    roles: ['user'],
    scopes: ['read', 'write'],
  });

  const registry = await rulePackRegistryService.build({ config, db, env, bus, logger, registry: registryOf() });
  await registry.app.listen({ port: 0, host: '127.0.0.1' });
  const registryUrl = `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`;
  const validationEnv = { ...env, RULEPACK_REGISTRY_URL: registryUrl };
  const validation = await validationService.build({
    config,
    db,
    env: validationEnv,
    bus,
    logger,
    registry: registryOf(),
  });
  await validation.app.listen({ port: 0, host: '127.0.0.1' });
  const validationUrl = `http://127.0.0.1:${(validation.app.server.address() as AddressInfo).port}`;
  try {
    // A fresh id per run: the database may be reused between runs, and certified versions are immutable.
    const packId = `bench-orders-${Date.now().toString(36)}`;
    const certified = { ...pack, metadata: { ...pack.metadata, pack_id: packId, version: '1.0.0' } };
    const post = async (url: string, token: string, body: unknown) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
      return res.json();
    };
    await post(`${registryUrl}/rulepacks`, author, { pack: certified });
    await post(`${registryUrl}/rulepacks/${packId}/versions/1.0.0/submit`, author, {});
    await post(`${registryUrl}/rulepacks/${packId}/versions/1.0.0/certify`, reviewer, {});
    const body = JSON.stringify({ rule_pack_id: packId, rule_pack_version: '1.0.0', payload: record });
    await post(`${validationUrl}/validate`, caller, JSON.parse(body));
    // The load generator in a worker thread, so it does not share the service's event loop.
    const opts = {
      url: `${validationUrl}/validate`,
      method: 'POST',
      connections: 50,
      workers: 1,
      headers: { authorization: `Bearer ${caller}`, 'content-type': 'application/json' },
      body,
    };
    await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pools
    const cpuBefore = mainThreadCpuSeconds();
    const result = await autocannon({ ...opts, duration: seconds });
    const cpu = cpuPerRequest(cpuBefore, mainThreadCpuSeconds(), result.requests.total);
    console.log(
      `  POST /validate (registry pack, cached; one record; one outbox row per run; ${db.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}), 50 connections, ${seconds} s:`,
    );
    console.log(
      `    ${fmt(result.requests.average)} requests/s, latency p50 ${fmt(result.latency.p50)} ms, p99 ${fmt(result.latency.p99)} ms; non-2xx ${result.non2xx}, errors ${result.errors}; service main-thread CPU ${cpu} per request (load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
  } finally {
    await validation.stop?.();
    await validation.app.close();
    await registry.stop?.();
    await registry.app.close();
    await bus.close();
    await db.close();
  }
}
