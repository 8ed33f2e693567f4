// The service contract. A service is its subgraph folder (domain, SDL, resolvers, definition),
// its rest-compat folder (REST routes), its Prisma schema file and migrations, and one line in
// the registry (launcher/registry.ts). Everything the platform derives about a service (port,
// gateway backend and /api/v1 routes, router subgraph, outbox relay producer, test lists) comes
// from the manifest below, so adding a service touches no shared list. docs/adding-a-service.md.
import type { FastifyInstance } from 'fastify';
import type { Scope } from './auth/auth-context';
import type { PlatformConfig } from './config/platform.config';
import type { Database } from './db/database';
import type { EventBus } from './events/event-bus';
import type { Logger } from './logging/logger';

export type Env = Record<string, string | undefined>;

/** One /api/v1 route the gateway proxies to the service that declares it. */
export interface GatewayRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | ('GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE')[];
  url: string;
  /** Upstream path; for wildcard routes, the prefix the path remainder is appended to. */
  upstreamPath: string;
  wildcard?: boolean;
  /** Required scope; by default `read` for GET/HEAD and `write` for everything else. */
  scope?: Scope;
  /** Where the backend expects the tenant id besides the X-Tenant-ID header. */
  injectTenant?: 'query' | 'body';
  summary: string;
}

/** What the platform knows of a service without building it. */
export interface ServiceManifest {
  /** Lower-case, as in spec 01; `<NAME>_PORT` and `<NAME>_URL` are derived from it. */
  name: string;
  version: string;
  /** The documented port (spec 01). */
  port: number;
  /** The subgraph's SDL file relative to the repository root, when the service has a subgraph. */
  subgraph?: string;
  /** The gateway's /api/v1 routes to this service. */
  gatewayRoutes?: GatewayRoute[];
  /** Writes audit events to the transactional outbox, which the relay delivers to the ledger. */
  producesAudit?: boolean;
  /** Needs the database (a process running only services that do not opens none). */
  usesDatabase?: boolean;
}

export interface ServiceDeps {
  config: PlatformConfig;
  db: Database;
  /** The environment, for service-specific settings (parsed by the service's own config module). */
  env: Env;
  logger: Logger;
  /** Every service the platform knows (built or planned), for the gateway and clients. */
  registry: readonly ServiceManifest[];
  /**
   * The process's event bus, shared by the services it runs (the launcher's); a service without
   * one creates its own from configuration (platform/events/service-bus.ts).
   */
  bus?: EventBus;
}

export interface BuiltService {
  app: FastifyInstance;
  /** Background work (relays, consumers) started after the app listens. */
  start?(): Promise<void>;
  /** Stops background work; the app itself is closed by the launcher. */
  stop?(): Promise<void>;
}

export interface ServiceDefinition extends ServiceManifest {
  build(deps: ServiceDeps): Promise<BuiltService>;
}

/** Declares a service: its manifest and how to build it (one style for every service). */
export function defineService(definition: ServiceDefinition): ServiceDefinition {
  return definition;
}
