// One service of `npm start` on its own worker thread (launcher/service-threads.ts starts it): its
// own V8 isolate, heap and event loop, so the other services' background work and objects never
// share its scavenges or its inline caches. It is built exactly as `npm run service -- <name>`
// builds it (its own database pool, event bus and outbox relay, on its documented port); only the
// JWT secret comes from the main thread, which may have generated it. Signals reach the main
// thread only: it posts `shutdown`, and this thread ends once drained (exit code 0, or 1 when the
// shutdown failed), which the main thread waits for.
// First: the tracing SDK must patch this thread's libraries before anything requires them.
import '../platform/telemetry/register';
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfigOrExit, runServices } from './run-services';
import { startOutboxTask } from './outbox-task';
import { registryOf, SERVICES } from './registry';

export interface ServiceThreadData {
  name: string;
  jwtSecret: string;
  jwtSecretGenerated: boolean;
}

/** Messages from a service thread to the main thread. */
export type ServiceThreadMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string };

function post(message: ServiceThreadMessage): void {
  parentPort!.postMessage(message);
}

async function main(data: ServiceThreadData): Promise<void> {
  const definition = SERVICES.find((s) => s.name === data.name);
  if (!definition) throw new Error(`no service named '${data.name}' in the registry`);
  const loaded = loadConfigOrExit(process.env);
  const config = {
    ...loaded,
    auth: { ...loaded.auth, jwtSecret: data.jwtSecret, jwtSecretGenerated: data.jwtSecretGenerated },
  };
  const running = await runServices([definition], {
    config,
    onThread: true,
    afterStart: async (r, logger) =>
      startOutboxTask({
        running: r.services.map((s) => s.definition),
        registry: registryOf(),
        db: r.db,
        env: process.env,
        logger,
        jwtSecret: r.config.auth.jwtSecret,
      }),
  });
  parentPort!.on('message', (message: { type: string }) => {
    if (message.type !== 'shutdown') return;
    // Closing the port lets the thread's event loop end once the last log lines are written; a
    // handle a library left open does not hold it past a second.
    const end = (code: number) => () => {
      process.exitCode = code;
      parentPort!.close();
      setTimeout(() => process.exit(code), 1000).unref();
    };
    running.shutdown('shutdown').then(end(0), end(1));
  });
  post({ type: 'ready', url: running.services[0]!.url });
}

main(workerData as ServiceThreadData).catch((err: unknown) => {
  post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  process.exit(1); // ends this thread only
});
