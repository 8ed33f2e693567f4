// Runs a set of services in this process: parses configuration (a bad value stops the start with
// a clear message), opens and migrates the database once, builds each service, listens on its
// documented port, and shuts everything down gracefully on SIGTERM/SIGINT: in-flight requests
// finish, then connections close, then the database.
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../platform/config/env';
import { loadPlatformConfig, servicePort, type PlatformConfig } from '../platform/config/platform.config';
import { openDatabase, type Database } from '../platform/db/database';
import { noDatabase } from '../platform/db/no-database';
import { processBus } from '../platform/events/service-bus';
import { createLogger, type Logger } from '../platform/logging/logger';
import { registerDatabaseMetrics } from '../platform/telemetry/database-metrics';
import { activeTracing } from '../platform/telemetry/tracing';
import type { BuiltService, Env, ServiceDefinition, ServiceManifest } from '../platform/service';
import { registryOf } from './registry';

export interface Running {
  config: PlatformConfig;
  db: Database;
  services: { definition: ServiceDefinition; built: BuiltService; url: string }[];
  /** Extra background tasks owned by the launcher (e.g. the outbox relay). */
  tasks: { stop(): Promise<void> }[];
  shutdown(reason: string): Promise<void>;
}

export interface RunOptions {
  env?: Env;
  /** One service on its own: `PORT` applies to it. */
  alone?: boolean;
  /** Every service the platform knows (default: the registry). */
  registry?: readonly ServiceManifest[];
  /** Starts process-wide background work once every service listens. */
  afterStart?: (running: Running, logger: Logger) => Promise<{ stop(): Promise<void> }[]>;
}

export async function runServices(
  definitions: readonly ServiceDefinition[],
  options: RunOptions = {},
): Promise<Running> {
  const env = options.env ?? process.env;
  let config: PlatformConfig;
  try {
    config = loadPlatformConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, 'launcher');
  if (config.auth.jwtSecretGenerated) {
    logger.warn(
      'JWT_SECRET_KEY is not set: a secret was generated for this process, so tokens will not verify after a restart or in other processes',
    );
  }
  // A process of services that declare `usesDatabase: false` (a gateway alone) opens none.
  const needsDatabase = definitions.some((d) => d.usesDatabase !== false);
  const db = needsDatabase ? await openDatabase(config.database) : noDatabase();
  if (needsDatabase) logger.info({ database: db.description }, 'database ready (migrations applied)');
  if (needsDatabase) registerDatabaseMetrics(db);

  // One bus for every service of this process, so they hear each other (on PGlite it is in memory).
  const bus = await processBus({ config, db, logger });
  const running: Running = { config, db, services: [], tasks: [], shutdown: async () => {} };
  try {
    for (const definition of definitions) {
      const built = await definition.build({
        config,
        db,
        env,
        bus,
        logger: logger.child({ service: definition.name }),
        registry: options.registry ?? registryOf(),
      });
      const port = servicePort(env, definition, options.alone);
      await built.app.listen({ port, host: config.http.host });
      const address = built.app.server.address() as AddressInfo;
      running.services.push({ definition, built, url: `http://${config.http.host}:${address.port}` });
      await built.start?.();
    }
    if (options.afterStart) running.tasks.push(...(await options.afterStart(running, logger)));
  } catch (err) {
    logger.error({ err }, 'start failed');
    for (const s of running.services.reverse()) await s.built.app.close().catch(() => {});
    await bus.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }

  let stopping: Promise<void> | undefined;
  running.shutdown = (reason: string) => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down: finishing in-flight requests');
      const force = setTimeout(() => {
        logger.warn('grace period over: closing remaining connections');
        for (const s of running.services) s.built.app.server.closeAllConnections();
      }, config.http.shutdownGraceMs);
      force.unref();
      for (const task of running.tasks) await task.stop().catch((err) => logger.error({ err }, 'task stop failed'));
      // The front door first, so no new work reaches the services behind it.
      for (const s of [...running.services].reverse()) {
        await s.built.stop?.().catch((err) => logger.error({ err }, 'service stop failed'));
        await s.built.app.close();
      }
      await bus.close().catch((err) => logger.error({ err }, 'event bus close failed'));
      await db.close();
      // Spans still buffered go out before the process exits.
      await activeTracing()
        ?.shutdown()
        .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'trace export at shutdown failed'));
      clearTimeout(force);
      logger.info({ reason }, 'stopped');
    })();
    return stopping;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // `on`, not `once`: a library's exit hook (signal-exit) re-raises the signal when it finds no
    // other listener left, which killed the process mid-drain before it could log 'stopped'.
    // A second signal joins the shutdown already under way.
    process.on(signal, () => {
      // The log is written asynchronously: flush it, or process.exit drops the 'stopped' line.
      const exit = (code: number) => () => logger.flush(() => process.exit(code));
      running.shutdown(signal).then(exit(0), exit(1));
    });
  }
  return running;
}
