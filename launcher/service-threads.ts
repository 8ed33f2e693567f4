// `npm start` on PostgreSQL runs the services SERVICE_THREADS names each on its own worker thread
// (launcher/service-thread.ts), the rest on the main thread. A service in one process shares the
// event loop, the heap (every scavenge copies the others' in-flight objects) and the inline caches
// of the shared kernel with all the others; on a thread of its own its hot path is as it is in
// `npm run service -- <name>` (docs/decisions.md, "Service threads in npm start"). It hears and is
// heard as a separately started service: events cross threads as they cross processes (NATS or
// PostgreSQL NOTIFY), its outbox relay is its own, and it listens on its documented port. On the
// embedded database (PGlite, one in-process database) every service stays on the main thread.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ConfigError } from '../platform/config/env';
import type { PlatformConfig } from '../platform/config/platform.config';
import type { Logger } from '../platform/logging/logger';
import type { Env, ServiceDefinition } from '../platform/service';
import type { ServiceThreadData, ServiceThreadMessage } from './service-thread';

/** Measured in docs/benchmarks.md ("Eleventh session: iso"): identity's verify is the hot path issue 35 names. */
export const DEFAULT_SERVICE_THREADS = ['identity'];

/**
 * The services to run on their own threads: SERVICE_THREADS (a comma list of service names, or
 * `none`), by default DEFAULT_SERVICE_THREADS; none on the embedded database.
 */
export function serviceThreadsOf(env: Env, services: readonly ServiceDefinition[], onPostgres: boolean): string[] {
  const raw = env.SERVICE_THREADS?.trim();
  const names =
    raw === undefined || raw === ''
      ? DEFAULT_SERVICE_THREADS
      : raw === 'none'
        ? []
        : raw
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n !== '');
  for (const name of names) {
    if (!services.some((s) => s.name === name)) {
      throw new ConfigError(
        `SERVICE_THREADS names '${name}', which is not a service (${services.map((s) => s.name).join(', ')}, or none)`,
      );
    }
  }
  return onPostgres ? [...new Set(names)] : [];
}

export interface ServiceThread {
  name: string;
  url: string;
  /** Asks the thread to drain and close; resolves when it has ended. */
  stop(): Promise<void>;
}

/**
 * Starts one service on its own thread and resolves once it listens. A thread that fails to start
 * rejects with its error; one that ends later, unasked, calls `onUnexpectedExit`.
 */
export function startServiceThread(
  name: string,
  config: PlatformConfig,
  logger: Logger,
  onUnexpectedExit: (name: string, code: number) => void,
): Promise<ServiceThread> {
  const data: ServiceThreadData = {
    name,
    jwtSecret: config.auth.jwtSecret,
    jwtSecretGenerated: config.auth.jwtSecretGenerated,
  };
  const worker = new Worker(path.join(__dirname, 'service-thread.js'), { workerData: data, name: `service ${name}` });
  let stopping = false;
  const ended = new Promise<number>((resolve) => worker.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let failure: string | undefined;
    let ready = false;
    worker.on('error', (err) => {
      failure ??= err.message;
      logger.error({ err, service: name }, 'service thread error');
    });
    worker.on('message', (message: ServiceThreadMessage) => {
      if (message.type === 'failed') failure = message.message;
      if (message.type !== 'ready') return;
      ready = true;
      resolve({
        name,
        url: message.url,
        stop: async () => {
          stopping = true;
          worker.postMessage({ type: 'shutdown' });
          const code = await ended;
          if (code !== 0) throw new Error(`service ${name} (own thread) ended its shutdown with exit code ${code}`);
        },
      });
    });
    void ended.then((code) => {
      if (!ready) {
        reject(new Error(`service ${name} (own thread) failed to start: ${failure ?? `exit code ${code}`}`));
      } else if (!stopping) {
        onUnexpectedExit(name, code);
      }
    });
  });
}
