// Starts the outbox relay for the producing services running in this process. The relay calls
// the ledger directly (service to service); when the ledger demands tokens (REQUIRE_AUTH=true),
// a service account's client credentials (SERVICE_CLIENT_ID / SERVICE_CLIENT_SECRET) get one.
import { createLedgerClient } from '../platform/clients/ledger.client';
import { readOptional } from '../platform/config/env';
import { serviceUrl } from '../platform/config/platform.config';
import type { Logger } from '../platform/logging/logger';
import { startOutboxRelay } from '../platform/outbox/outbox-relay';
import type { Env } from '../platform/service';
import type { Running } from './run-services';
import { OUTBOX_PRODUCERS } from './registry';

function serviceTokenProvider(env: Env): (() => Promise<string | undefined>) | undefined {
  const clientId = readOptional(env, 'SERVICE_CLIENT_ID');
  const clientSecret = readOptional(env, 'SERVICE_CLIENT_SECRET');
  if (!clientId || !clientSecret) return undefined;
  let cached: { token: string; expiresAt: number } | undefined;
  return async () => {
    if (cached && cached.expiresAt > Date.now() + 60_000) return cached.token;
    const res = await fetch(`${serviceUrl(env, 'identity')}/v1/auth/service-token`, {
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

export async function startOutboxTask(running: Running, logger: Logger, env: Env): Promise<{ stop(): Promise<void> }[]> {
  const producers = running.services.map((s) => s.definition.name as string).filter((n) => OUTBOX_PRODUCERS.has(n));
  if (producers.length === 0) return [];
  const relay = startOutboxRelay({
    db: running.db,
    ledger: createLedgerClient({ baseUrl: serviceUrl(env, 'ledger'), token: serviceTokenProvider(env) }),
    logger: logger.child({ task: 'outbox-relay' }),
    services: producers,
  });
  return [relay];
}
