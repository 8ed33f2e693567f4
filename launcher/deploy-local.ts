// `npm run deploy:local`: the platform as an operator runs it on one machine, from dist/ (run
// `npm run build` first): N processes per service on PostgreSQL (DATABASE_URL, required; NATS_URL
// and REDIS_URL passed through), nginx in front of them with a config generated from the registry
// (launcher/nginx.config.ts), each service's balancer on its documented port. Every process gets
// `<SERVICE>_URL` = its balancer, so the gateway, the outbox relay and the service clients reach a
// healthy process of each service. nginx connects to the processes from DEPLOY_BALANCER_ADDRESS,
// which the gateways trust (TRUSTED_PROXIES) to say who the client is. Prints the URLs; Ctrl-C / SIGTERM stops everything it started
// (the gateways first, nginx last). docs/operations.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, readInt, readOptional, readString } from '../platform/config/env';
import { servicePort } from '../platform/config/platform.config';
import { PROJECT_ROOT } from '../platform/project-root';
import type { Env, ServiceManifest } from '../platform/service';
import { nginxConfig, ROUTED_BY_TENANT, type BalancedService } from './nginx.config';
import { SERVICES } from './registry';

export interface PlannedService {
  manifest: ServiceManifest;
  /** The balancer's port (the documented one unless `<SERVICE>_PORT` says otherwise). */
  listenPort: number;
  /** One port per process. */
  processPorts: number[];
}

function envName(service: string): string {
  return service.toUpperCase().replace(/-/g, '_');
}

/**
 * Which services, how many processes each and on which ports: DEPLOY_SERVICES (comma list, default
 * every service of the registry), DEPLOY_REPLICAS (default 2) or `<SERVICE>_REPLICAS`, processes
 * on consecutive ports from DEPLOY_PORT_BASE (default 20000).
 */
export function planDeployment(env: Env, services: readonly ServiceManifest[] = SERVICES): PlannedService[] {
  const wanted = readOptional(env, 'DEPLOY_SERVICES')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of wanted ?? [])
    if (!services.some((s) => s.name === name)) throw new Error(`DEPLOY_SERVICES names an unknown service '${name}'`);
  const replicas = readInt(env, 'DEPLOY_REPLICAS', 2, { min: 1, max: 32 });
  let next = readInt(env, 'DEPLOY_PORT_BASE', 20000, { min: 1024, max: 65000 });
  return services
    .filter((s) => !wanted || wanted.includes(s.name))
    .map((manifest) => {
      const n = readInt(env, `${envName(manifest.name)}_REPLICAS`, replicas, { min: 1, max: 32 });
      const processPorts = Array.from({ length: n }, () => next++);
      return { manifest, listenPort: servicePort(env, manifest), processPorts };
    });
}

export function balancedServices(plan: readonly PlannedService[], routeByTenant = true): BalancedService[] {
  return plan.map((p) => ({
    name: p.manifest.name,
    listenPort: p.listenPort,
    backends: p.processPorts.map((port) => `127.0.0.1:${port}`),
    routeByTenant: routeByTenant && ROUTED_BY_TENANT.has(p.manifest.name),
  }));
}

/** Every process addresses every service through its balancer. */
export function balancerUrls(plan: readonly PlannedService[]): Env {
  return Object.fromEntries(plan.map((p) => [`${envName(p.manifest.name)}_URL`, `http://127.0.0.1:${p.listenPort}`]));
}

/**
 * The address nginx connects to the processes from (DEPLOY_BALANCER_ADDRESS, default 127.0.0.1).
 * On Linux every 127.x.y.z is the loopback, so an address of its own (say 127.0.0.254) keeps the
 * gateway's trust to nginx alone: with 127.0.0.1 any local program calling the gateway directly,
 * or through nginx from 127.0.0.1, would be a trusted proxy and could name any client address.
 */
export function balancerAddress(env: Env): string {
  const address = readString(env, 'DEPLOY_BALANCER_ADDRESS', '127.0.0.1').trim();
  // The processes listen on 127.0.0.1, so nginx's side of the connection is IPv4 loopback too.
  if (isIP(address) !== 4 || !address.startsWith('127.'))
    throw new ConfigError(`DEPLOY_BALANCER_ADDRESS must be an IPv4 loopback address (127.x.y.z), got "${address}"`);
  return address;
}

/** The gateway believes nginx's X-Forwarded-For, and that of any proxy the operator put in front of nginx (TRUSTED_PROXIES). */
export function trustedProxiesFor(env: Env, balancer: string): string {
  const more = (readOptional(env, 'TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return [...new Set([balancer, ...more])].join(',');
}

export type SpawnService = (name: string, port: number, env: NodeJS.ProcessEnv) => ChildProcess;

/** The production way: `node dist/launcher/start-one.js <name>` (what `npm run service` and the container run). */
export const spawnFromDist: SpawnService = (name, port, env) =>
  spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist/launcher/start-one.js'), name], {
    cwd: PROJECT_ROOT,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

export interface Deployment {
  plan: PlannedService[];
  /** name -> balancer URL */
  urls: Record<string, string>;
  processes: { name: string; port: number; child: ChildProcess }[];
  nginx: ChildProcess;
  nginxConfPath: string;
  stop(): Promise<void>;
}

export interface DeployOptions {
  env: NodeJS.ProcessEnv;
  plan: PlannedService[];
  spawnService?: SpawnService;
  nginxBinary?: string;
  /** Folder for nginx's config, pid, logs and temp files. */
  workDir?: string;
  onLog?: (line: string) => void;
  /** false: round-robin even for the services routed by tenant (the scale-out bench's comparison). */
  routeByTenant?: boolean;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitReady(url: string, child: ChildProcess, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited during start (code ${child.exitCode ?? child.signalCode})`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${what} not ready at ${url} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function deployLocal(options: DeployOptions): Promise<Deployment> {
  const { plan } = options;
  const log = options.onLog ?? ((line: string) => process.stdout.write(`${line}\n`));
  const spawnService = options.spawnService ?? spawnFromDist;
  const startTimeoutMs = readInt(options.env, 'DEPLOY_START_TIMEOUT_MS', 180_000, { min: 1000 });
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'platform-deploy-'));
  const balancer = balancerAddress(options.env);
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    ...balancerUrls(plan),
    TRUSTED_PROXIES: trustedProxiesFor(options.env, balancer),
  };
  for (const p of plan) delete env[`${envName(p.manifest.name)}_PORT`];
  const processes: Deployment['processes'] = [];
  let nginx: ChildProcess | undefined;

  const stop = async () => {
    // The front door first, nginx last, so nothing new arrives at a stopping process.
    const order = [...processes].sort((a, b) => Number(b.name === 'gateway') - Number(a.name === 'gateway'));
    const gateways = order.filter((p) => p.name === 'gateway');
    for (const p of gateways) p.child.kill('SIGTERM');
    await Promise.all(gateways.map((p) => exited(p.child)));
    const rest = order.filter((p) => p.name !== 'gateway');
    for (const p of rest) p.child.kill('SIGTERM');
    await Promise.all(rest.map((p) => exited(p.child)));
    if (nginx) {
      nginx.kill('SIGQUIT');
      await exited(nginx);
    }
  };

  try {
    const nginxConfPath = path.join(workDir, 'nginx.conf');
    for (const dir of ['client_body_temp', 'proxy_temp', 'fastcgi_temp', 'uwsgi_temp', 'scgi_temp']) {
      fs.mkdirSync(path.join(workDir, dir), { recursive: true, mode: 0o777 });
      // nginx's workers drop to an unprivileged user when the master runs as root.
      fs.chmodSync(path.join(workDir, dir), 0o777);
    }
    fs.writeFileSync(
      nginxConfPath,
      nginxConfig({ services: balancedServices(plan, options.routeByTenant), prefix: workDir, bindAddress: balancer }),
    );
    // The balancer first: a service's first calls (the outbox relay's) already go through it.
    nginx = spawn(
      options.nginxBinary ?? readString(options.env, 'NGINX_BINARY', 'nginx'),
      ['-p', workDir, '-e', path.join(workDir, 'error.log'), '-c', nginxConfPath, '-g', 'daemon off;'],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const nginxDead = new Promise<never>((_, reject) =>
      nginx!.once('exit', (code) => reject(new Error(`nginx exited (${code}); see ${workDir}/error.log`))),
    );
    nginxDead.catch(() => {});

    // The first process of each service alone (it applies migrations, seeds), in registry order,
    // the gateway last; then every other process at once.
    for (const p of plan) {
      const port = p.processPorts[0]!;
      const child = spawnService(p.manifest.name, port, env);
      processes.push({ name: p.manifest.name, port, child });
      await Promise.race([
        waitReady(`http://127.0.0.1:${port}/readyz`, child, `${p.manifest.name} :${port}`, startTimeoutMs),
        nginxDead,
      ]);
    }
    const more = plan.flatMap((p) =>
      p.processPorts
        .slice(1)
        .map((port) => ({ name: p.manifest.name, port, child: spawnService(p.manifest.name, port, env) })),
    );
    processes.push(...more);
    await Promise.all(
      more.map((m) =>
        Promise.race([
          waitReady(`http://127.0.0.1:${m.port}/readyz`, m.child, `${m.name} :${m.port}`, startTimeoutMs),
          nginxDead,
        ]),
      ),
    );
    const urls = Object.fromEntries(plan.map((p) => [p.manifest.name, `http://127.0.0.1:${p.listenPort}`]));
    for (const p of plan)
      await Promise.race([
        waitReady(`${urls[p.manifest.name]}/health`, nginx, `nginx for ${p.manifest.name}`, startTimeoutMs),
        nginxDead,
      ]);
    log(
      [
        '',
        'Platform deployed (nginx in front; processes per service):',
        ...plan.map(
          (p) =>
            `  ${p.manifest.name.padEnd(18)} ${urls[p.manifest.name]}  <- ${p.processPorts.map((x) => `:${x}`).join(' ')}`,
        ),
        `  nginx config        ${nginxConfPath}`,
        `  trusted proxies     ${env.TRUSTED_PROXIES} (X-Forwarded-For believed from these)`,
        '',
      ].join('\n'),
    );
    return { plan, urls, processes, nginx, nginxConfPath, stop };
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
}

async function main(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (!env.DATABASE_URL && !env.POSTGRES_URL) {
    console.error(
      'deploy:local runs several processes per service, which share state through PostgreSQL: set DATABASE_URL.',
    );
    process.exit(78);
  }
  if (!env.JWT_SECRET_KEY) {
    // Every process must verify every other's tokens: one secret for all of them.
    env.JWT_SECRET_KEY = randomBytes(48).toString('base64url');
    console.error('JWT_SECRET_KEY is not set: generated one for this deployment (tokens will not survive a restart)');
  }
  const deployment = await deployLocal({ env, plan: planDeployment(env) });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.error(`${signal}: stopping every process and nginx`);
      deployment.stop().then(
        () => {
          console.error('stopped');
          process.exit(0);
        },
        () => process.exit(1),
      );
    });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
