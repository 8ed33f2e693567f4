// `npm start`: every service in one process, each on its documented port, on the embedded
// database unless DATABASE_URL is set. On PostgreSQL the services SERVICE_THREADS names (by
// default identity) run each on its own worker thread (launcher/service-threads.ts).
// First: the tracing SDK must patch libraries before anything requires them.
import '../platform/telemetry/register';
import { ConfigError } from '../platform/config/env';
import { createLogger } from '../platform/logging/logger';
import { loadConfigOrExit, runServices } from './run-services';
import { startOutboxTask } from './outbox-task';
import { registryOf, SERVICES } from './registry';
import { serviceThreadsOf, startServiceThread, type ServiceThread } from './service-threads';

function threadNamesOrExit(onPostgres: boolean): string[] {
  try {
    return serviceThreadsOf(process.env, SERVICES, onPostgres);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`configuration error: ${err.message}`);
    process.exit(78); // EX_CONFIG
  }
}

async function main(): Promise<void> {
  // Parsed once here: a generated JWT secret must be the same on every thread.
  const config = loadConfigOrExit(process.env);
  const logger = createLogger(config.logLevel, 'launcher');
  const onPostgres = config.database.url !== undefined;
  const threadNames = threadNamesOrExit(onPostgres);
  if (!onPostgres && process.env.SERVICE_THREADS && process.env.SERVICE_THREADS !== 'none')
    logger.info('SERVICE_THREADS is ignored on the embedded database: every service runs on the main thread');

  // A service thread that ends unasked takes the platform down with a non-zero exit code, so a
  // supervisor restarts all of it (docs/operations.md): a half-running platform answers 502s.
  const platform: { shutdown?: (reason: string) => Promise<void> } = {};
  const onUnexpectedExit = (name: string, code: number) => {
    logger.fatal({ service: name, code }, `service ${name} (own thread) stopped unexpectedly: stopping the platform`);
    const exit = () => logger.flush(() => process.exit(1));
    (platform.shutdown?.(`service thread ${name} exited`) ?? Promise.resolve()).then(exit, exit);
  };
  // The threads first, one after another: the first applies the migrations, and one that fails to
  // start fails `npm start` before anything else listens.
  const threads: ServiceThread[] = [];
  try {
    for (const name of threadNames) threads.push(await startServiceThread(name, config, logger, onUnexpectedExit));
  } catch (err) {
    for (const t of threads.reverse()) await t.stop().catch(() => {});
    throw err;
  }

  const running = await runServices(
    SERVICES.filter((s) => !threadNames.includes(s.name)),
    {
      config,
      afterStart: async (r, log) => {
        r.siblings.push(...threads);
        return startOutboxTask({
          running: r.services.map((s) => s.definition),
          registry: registryOf(),
          db: r.db,
          env: process.env,
          logger: log,
          jwtSecret: r.config.auth.jwtSecret,
        });
      },
    },
  ).catch(async (err: unknown) => {
    for (const t of threads.reverse()) await t.stop().catch(() => {});
    throw err;
  });
  platform.shutdown = running.shutdown;
  const urls = new Map<string, string>([
    ...running.services.map((s) => [s.definition.name, s.url] as [string, string]),
    ...threads.map((t) => [t.name, `${t.url}  (own thread)`] as [string, string]),
  ]);
  const lines = [
    '',
    `Platform running on ${running.db.description}`,
    // In the registry's order, wherever each runs.
    ...SERVICES.map(
      ({ name }) =>
        `  ${name.padEnd(18)} ${urls.get(name)}${name === 'gateway' ? '  (GraphQL: /graphql, REST: /api/v1)' : ''}`,
    ),
    '',
    'Development users (tenant "default"): see README.md; stop with Ctrl+C.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
