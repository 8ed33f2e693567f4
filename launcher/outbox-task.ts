// Starts the outbox relay for the audit-producing services (manifest `producesAudit`) running in
// this process. The relay calls the ledger directly (service to service); when the ledger demands
// a token (the default), a service account's client credentials (SERVICE_CLIENT_ID /
// SERVICE_CLIENT_SECRET) get one from identity, or else the relay signs its own service token.
import { AccessTokens } from '../platform/auth/jwt';
import { createLedgerClient } from '../platform/clients/ledger.client';
import { readOptional } from '../platform/config/env';
import { serviceUrl } from '../platform/config/platform.config';
import type { Database } from '../platform/db/database';
import type { Logger } from '../platform/logging/logger';
import { startOutboxRelay } from '../platform/outbox/outbox-relay';
import type { Env, ServiceManifest } from '../platform/service';
import { manifestOf } from './registry';

/**
 * The relay's own service token when no service account is configured: signed with the platform's
 * shared JWT secret (every process of a deployment has it), role `service:outbox-relay`, scope
 * `ledger:write`. The ledger records it as the writer of the events it delivers.
 */
export function relayTokenProvider(jwtSecret: string): () => Promise<string> {
  const tokens = new AccessTokens(jwtSecret, 3600);
  let cached: { token: string; expiresAt: number } | undefined;
  return async () => {
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
    const token = await tokens.issue({
      username: 'outbox-relay',
      tenantId: 'platform',
      roles: ['service:outbox-relay'],
      scopes: ['ledger:write'],
    });
    cached = { token, expiresAt: Date.now() + 3_600_000 };
    return token;
  };
}

function serviceTokenProvider(env: Env, identityUrl: string, jwtSecret: string): () => Promise<string | undefined> {
  const clientId = readOptional(env, 'SERVICE_CLIENT_ID');
  const clientSecret = readOptional(env, 'SERVICE_CLIENT_SECRET');
  if (!clientId || !clientSecret) return relayTokenProvider(jwtSecret);
  let cached: { token: string; expiresAt: number } | undefined;
  return async () => {
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
    const res = await fetch(`${identityUrl}/v1/auth/service-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    if (!res.ok) throw new Error(`service token request failed with ${res.status}`);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    cached = { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
    return cached.token;
  };
}

export interface OutboxTaskOptions {
  /** The services running in this process; the relay delivers the producers' events. */
  running: readonly ServiceManifest[];
  registry: readonly ServiceManifest[];
  db: Database;
  env: Env;
  logger: Logger;
  /** The platform's JWT secret, for the relay's own service token. */
  jwtSecret: string;
}

export function startOutboxTask(options: OutboxTaskOptions): { stop(): Promise<void> }[] {
  const producers = options.running.filter((s) => s.producesAudit).map((s) => s.name);
  if (producers.length === 0) return [];
  const { env, registry } = options;
  const relay = startOutboxRelay({
    db: options.db,
    ledger: createLedgerClient({
      baseUrl: serviceUrl(env, manifestOf('ledger', registry)),
      token: serviceTokenProvider(env, serviceUrl(env, manifestOf('identity', registry)), options.jwtSecret),
    }),
    logger: options.logger.child({ task: 'outbox-relay' }),
    services: producers,
  });
  return [relay];
}
