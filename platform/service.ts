// What a service hands the launcher. Each service folder exports one ServiceDefinition; the
// launcher (launcher/) opens the database once, builds the services it was asked for, and runs
// each on its own port. Services never import each other: they meet only here and over HTTP/events.
import type { FastifyInstance } from 'fastify';
import type { PlatformConfig, ServiceName } from './config/platform.config';
import type { Database } from './db/database';
import type { Logger } from './logging/logger';

export type Env = Record<string, string | undefined>;

export interface ServiceDeps {
  config: PlatformConfig;
  db: Database;
  /** The environment, for service-specific settings (parsed by the service's own config module). */
  env: Env;
  logger: Logger;
}

export interface BuiltService {
  app: FastifyInstance;
  /** Background work (relays, consumers) started after the app listens. */
  start?(): Promise<void>;
  /** Stops background work; the app itself is closed by the launcher. */
  stop?(): Promise<void>;
}

export interface ServiceDefinition {
  name: ServiceName;
  version: string;
  build(deps: ServiceDeps): Promise<BuiltService>;
}
