// The gateway's in-process copy of tenants' configuration (platform/clients/config-cache.ts),
// read with the gateway's own service identity: refreshed on `config.changed` when the process
// shares a bus with the config service, and every CONFIG_REFRESH_MS (10 s) in any case.
import { ServiceIdentity } from '../../../platform/auth/service-identity';
import { CachedConfig } from '../../../platform/clients/config-cache';
import { ConfigClient } from '../../../platform/clients/config.client';
import type { EventBus } from '../../../platform/events/event-bus';
import type { Logger } from '../../../platform/logging/logger';

export function tenantConfigOf(
  backends: Readonly<Record<string, string>>,
  jwtSecret: string,
  bus: Pick<EventBus, 'publish' | 'subscribe'> | undefined,
  logger: Pick<Logger, 'warn'>,
  refreshMs = 10_000,
): CachedConfig | undefined {
  const url = backends.config;
  if (!url) return undefined;
  return new CachedConfig(new ConfigClient(url, new ServiceIdentity(jwtSecret, 'gateway')), { bus, logger, refreshMs });
}
