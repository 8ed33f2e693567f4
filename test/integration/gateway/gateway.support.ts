// Starts the gateway alone against fake backends and a fixture supergraph, for tests of the
// gateway's own behaviour (proxy, breaker, timeouts, rate limit, CORS, auth).
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { AccessTokens } from '../../../platform/auth/jwt';
import type { Env } from '../../../platform/service';
import { composeSupergraph } from '../../../router/compose';
import { gatewayService } from '../../../services/gateway';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { UPLOADS_SDL } from '../../support/fixtures/fake-subgraphs';

export const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);

export function tokenFor(
  tenantId: string,
  scopes: string[] = ['read', 'write'],
  roles: string[] = ['user'],
  username = `u-${tenantId}`,
): Promise<string> {
  return tokens.issue({ username, tenantId, roles, scopes });
}

/** A supergraph of the `uploads` fixture subgraph, written to a temp file. */
export function fixtureSupergraphFile(url: string, sdl = UPLOADS_SDL): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'supergraph-'));
  const file = path.join(dir, 'supergraph.graphql');
  fs.writeFileSync(file, composeSupergraph([{ name: 'uploads', url, sdl }]));
  return file;
}

export async function startGateway(env: Env): Promise<Harness & { url: string }> {
  const harness = await startServices([gatewayService], env);
  return Object.assign(harness, { url: harness.services.gateway!.url });
}

/** A URL on a port nothing listens on (a service that is not deployed). */
export async function deadUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Whether Redis answers at `url` (the shared-bucket tests need it). */
export async function redisAvailable(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}
