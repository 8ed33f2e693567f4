// The whole platform as the registry lists it: every service on an ephemeral port over one fresh
// database, the gateway last and told where each one is, for end-to-end tests through the router
// and the REST ports with real clients. A new service is started here by being in the registry.
import type { Server } from 'node:http';
import { registryOf, SERVICES } from '../../../launcher/registry';
import type { Env, ServiceDefinition } from '../../../platform/service';
import { AccessTokens } from '../../../platform/auth/jwt';
import type { TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';

export interface Platform {
  gateway: string;
  identity: string;
  ledger: string;
  /** Every running service's URL by name. */
  urls: Record<string, string>;
  db: TestDatabase;
  /** The environment the services were built with (including every `<NAME>_URL`). */
  env: Env;
  /** The ledger's HTTP server, for tests that watch what reaches it (e.g. WebSocket upgrades). */
  ledgerServer: Server;
  login(username: string, password: string, tenantId?: string): Promise<string>;
  close(): Promise<void>;
}

export const DEV = {
  admin: { username: 'admin', password: 'admin-dev-password' },
  user: { username: 'user', password: 'user-dev-password' },
};

export async function startPlatform(
  env: Env = {},
  services: readonly ServiceDefinition[] = SERVICES,
): Promise<Platform> {
  const registry = registryOf(services);
  // Ports chosen before the start, so every service knows where the others are (<NAME>_URL), as
  // with the documented ports of `npm start`; a test's own <NAME>_URL (a stand-in) wins.
  const behind = services.filter((s) => s.name !== 'gateway');
  const ports: Record<string, number> = {};
  for (const s of behind) ports[s.name] = await freePort();
  const urls = Object.fromEntries(behind.map((s) => [s.name, `http://127.0.0.1:${ports[s.name]}`]));
  const urlEnv = Object.fromEntries(
    Object.entries(urls).map(([name, url]) => [`${name.toUpperCase().replace(/-/g, '_')}_URL`, url]),
  );
  const backends: Harness = await startServices(behind, { ...urlEnv, ...env }, { registry, ports });
  const limits = {
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    IP_RATE_LIMIT_PER_SECOND: '100000',
    IP_RATE_LIMIT_BURST: '100000',
  };
  const front = await startServices(
    services.filter((s) => s.name === 'gateway'),
    { ...limits, ...env, ...urlEnv },
    { db: backends.db, registry, bus: backends.bus },
  ).catch(async (err: unknown) => {
    await backends.close().catch(() => undefined);
    throw err;
  });
  const identity = urls.identity!;
  const ledger = urls.ledger!;
  return {
    gateway: front.services.gateway!.url,
    identity,
    ledger,
    urls,
    db: backends.db,
    env: { ...urlEnv, ...backends.env },
    ledgerServer: backends.services.ledger!.built.app.server,
    async login(username, password, tenantId?: string) {
      const res = await fetch(`${identity}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password, ...(tenantId ? { tenant_id: tenantId } : {}) }),
      });
      if (!res.ok) throw new Error(`login failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    },
    async close() {
      await front.close();
      await backends.close();
    },
  };
}

/** A token for a tenant that has no user in identity (the ledger trusts any valid token). */
export function tenantToken(tenantId: string, scopes = ['read', 'write']): Promise<string> {
  return new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: `someone-${tenantId}`,
    tenantId,
    roles: ['user'],
    scopes,
  });
}

export async function gql(
  url: string,
  query: string,
  options: {
    token?: string;
    variables?: Record<string, unknown>;
    headers?: Record<string, string>;
    extensions?: unknown;
  } = {},
): Promise<{
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
}> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables: options.variables, extensions: options.extensions }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as never };
}
