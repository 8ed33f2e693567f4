// Runs one or more services for a test on ephemeral ports (never the documented fixed ports, so
// suites can run side by side), against a fresh test database.
import type { AddressInfo } from 'node:net';
import { loadPlatformConfig, type PlatformConfig } from '../../platform/config/platform.config';
import type { EventBus } from '../../platform/events/event-bus';
import { processBus } from '../../platform/events/service-bus';
import { createLogger } from '../../platform/logging/logger';
import type { BuiltService, Env, ServiceDefinition, ServiceManifest } from '../../platform/service';
import { createTestDatabase, type TestDatabase } from './database';
import { registryOf } from '../../launcher/registry';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface RunningService {
  built: BuiltService;
  url: string;
  port: number;
}

export interface Harness {
  db: TestDatabase;
  config: PlatformConfig;
  env: Env;
  services: Record<string, RunningService>;
  /** The bus the services share, as in one launcher process. */
  bus: EventBus;
  close(): Promise<void>;
}

export async function startServices(
  definitions: readonly ServiceDefinition[],
  envOverrides: Env = {},
  options: {
    db?: TestDatabase;
    registry?: readonly ServiceManifest[];
    bus?: EventBus;
    ports?: Readonly<Record<string, number>>;
  } = {},
): Promise<Harness> {
  const db = options.db ?? (await createTestDatabase());
  const env: Env = { LOG_LEVEL: 'ERROR', JWT_SECRET_KEY: TEST_JWT_SECRET, NODE_ENV: 'test', ...envOverrides };
  const config = loadPlatformConfig(env);
  const services: Record<string, RunningService> = {};
  const bus = options.bus ?? (await processBus({ config, db, logger: createLogger(config.logLevel, 'bus') }));
  const close = async () => {
    for (const s of Object.values(services).reverse()) {
      await s.built.stop?.();
      await s.built.app.close();
    }
    if (!options.bus) await bus.close();
    if (!options.db) await db.drop();
  };
  for (const def of definitions) {
    const built = await def.build({
      config,
      db,
      env,
      bus,
      logger: createLogger(config.logLevel, def.name),
      registry: options.registry ?? registryOf(),
    });
    try {
      await built.app.listen({ port: options.ports?.[def.name] ?? 0, host: '127.0.0.1' });
      const port = (built.app.server.address() as AddressInfo).port;
      await built.start?.();
      services[def.name] = { built, port, url: `http://127.0.0.1:${port}` };
    } catch (err) {
      // A start that fails half-way closes what it started, so a failing suite cannot leave
      // servers, workers or connections behind that keep jest from exiting.
      await built.stop?.().catch(() => undefined);
      await built.app.close().catch(() => undefined);
      await close().catch(() => undefined);
      throw err;
    }
  }
  return { db, config, env, services, bus, close };
}
