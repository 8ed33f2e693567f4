// `npm run bench -- identity [seconds]`: starts the identity service on an ephemeral port (in-memory
// PGlite, or PostgreSQL when DATABASE_URL is set) and measures, with autocannon:
//   - GET /v1/auth/verify at 50 connections (req/s, p50, p99);
//   - POST /v1/auth/token logins/s (bounded by the password hash by design);
// and prints the scrypt cost per hash and TOTP verifications per second on one core
// (bench/identity-totp.ts; `npm run bench -- identity totp` runs that alone), and the gateway's
// token verification by algorithm, HS256 vs EdDSA vs RS256 (bench/identity-jwks.ts; `identity jwks` alone). The load generator runs in a worker thread so it does not
// share the server's event loop. Numbers only: nothing here passes or fails on time.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createLogger } from '../platform/logging/logger';
import { identityService } from '../services/identity';
import { loadIdentityConfig } from '../subgraphs/identity/identity.config';
import { prismaUnitOfWork } from '../subgraphs/identity/identity.stores';
import { ScryptPasswordHasher } from '../subgraphs/identity/password.hasher';
import { registryOf } from '../launcher/registry';
import { measureTotp, printTotp } from './identity-totp';
import { measureJwks, printJwks } from './identity-jwks';

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
  timeouts: number;
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the slice of its programmatic API used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export async function run(args: string[]): Promise<void> {
  if (args[0] === 'totp') {
    printTotp(measureTotp(Number(args[1] ?? 3) || 3));
    return;
  }
  if (args[0] === 'jwks') {
    printJwks(await measureJwks(Number(args[1] ?? 3) || 3));
    return;
  }
  const seconds = Number(args[0] ?? 10) || 10;
  const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARNING' };
  const config = loadPlatformConfig(env);
  const identityConfig = loadIdentityConfig(env, config.auth.jwtSecret);
  const db = await openDatabase(config.database.url ? config.database : { ...config.database, pgliteDir: 'memory://' });
  const built = await identityService.build({
    config,
    db,
    env,
    logger: createLogger(config.logLevel, 'identity'),
    registry: registryOf(),
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;

  // A throwaway user of our own, so the bench never depends on (or changes) the dev credentials.
  const stores = prismaUnitOfWork(db.prisma);
  const hasher = new ScryptPasswordHasher(identityConfig.scryptLogN);
  const username = `bench-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const [userRole] = await stores.roles.findByNames(null, ['user']);
  await stores.users.create({
    username,
    email: null,
    passwordHash: await hasher.hash(password),
    tenantId: 'default',
    isService: false,
    isVerified: true,
    roleIds: [userRole!.id],
    assignedBy: null,
  });

  try {
    const hashRuns = 10;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < hashRuns; i++) await hasher.hash(password);
    const hashMs = Number(process.hrtime.bigint() - t0) / 1e6 / hashRuns;

    const form = new URLSearchParams({ username, password, grant_type: 'password' }).toString();
    const loginRes = await fetch(`${url}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const { access_token: token } = (await loginRes.json()) as { access_token: string };

    const verifyOpts = {
      url: `${url}/v1/auth/verify`,
      connections: 50,
      headers: { authorization: `Bearer ${token}` },
      workers: 1,
    };
    await autocannon({ ...verifyOpts, duration: 2 }); // warm-up: JIT, caches, connection pools
    const verify = await autocannon({ ...verifyOpts, duration: seconds });

    const logins = await autocannon({
      url: `${url}/v1/auth/token`,
      method: 'POST',
      connections: 8,
      duration: seconds,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      workers: 1,
    });

    console.log(
      `identity benchmark — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${db.description}, LOG_LEVEL=${config.logLevel}`,
    );
    console.log(
      `password hash: scrypt ln=${identityConfig.scryptLogN} (N=${2 ** identityConfig.scryptLogN}, r=8, p=1): ${fmt(hashMs, 1)} ms per hash (mean of ${hashRuns}, one at a time)`,
    );
    console.log(
      `GET /v1/auth/verify, 50 connections, ${seconds}s: ${fmt(verify.requests.average)} req/s, p50 ${fmt(verify.latency.p50, 1)} ms, p99 ${fmt(verify.latency.p99, 1)} ms, ${fmt(verify.requests.total)} requests, non-2xx ${verify.non2xx}, errors ${verify.errors}`,
    );
    // Measured with the server idle (autocannon done), on this thread: one core.
    const totp = measureTotp();
    console.log(
      `POST /v1/auth/token, 8 connections, ${seconds}s: ${fmt(logins.requests.average, 1)} logins/s, p50 ${fmt(logins.latency.p50, 1)} ms, p99 ${fmt(logins.latency.p99, 1)} ms, non-2xx ${logins.non2xx}, errors ${logins.errors}`,
    );
    printTotp(totp);
    printJwks(await measureJwks());
  } finally {
    // Close the app first: it lets requests still in flight when autocannon stopped finish.
    await built.app.close();
    await db.prisma.user.deleteMany({ where: { username } });
    await db.close();
  }
}
