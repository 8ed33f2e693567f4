// The real identity and ledger services plus the gateway, each on an ephemeral port over one
// fresh database, for end-to-end tests through the router with real clients.
import { identityService } from '../../../subgraphs/identity';
import { ledgerService } from '../../../subgraphs/ledger';
import { gatewayService } from '../../../router';
import type { Server } from 'node:http';
import type { Env } from '../../../platform/service';
import { AccessTokens } from '../../../platform/auth/jwt';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';

export interface Platform {
  gateway: string;
  identity: string;
  ledger: string;
  /** The ledger's HTTP server, for tests that watch what reaches it (e.g. WebSocket upgrades). */
  ledgerServer: Server;
  login(username: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export const DEV = { admin: { username: 'admin', password: 'admin-dev-password' }, user: { username: 'user', password: 'user-dev-password' } };

export async function startPlatform(env: Env = {}): Promise<Platform> {
  const backends: Harness = await startServices([identityService, ledgerService], env);
  const identity = backends.services.identity!.url;
  const ledger = backends.services.ledger!.url;
  const front = await startServices([gatewayService], { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000', IP_RATE_LIMIT_PER_SECOND: '100000', IP_RATE_LIMIT_BURST: '100000', ...env, IDENTITY_URL: identity, LEDGER_URL: ledger }, { db: backends.db });
  return {
    gateway: front.services.gateway!.url,
    identity,
    ledger,
    ledgerServer: backends.services.ledger!.built.app.server,
    async login(username, password) {
      const res = await fetch(`${identity}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
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
  return new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username: `someone-${tenantId}`, tenantId, roles: ['user'], scopes });
}

export async function gql(url: string, query: string, options: { token?: string; variables?: Record<string, unknown>; headers?: Record<string, string>; extensions?: unknown } = {}): Promise<{ status: number; body: { data?: any; errors?: { message: string; extensions?: { code?: string } }[] } }> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
    body: JSON.stringify({ query, variables: options.variables, extensions: options.extensions }),
  });
  return { status: res.status, body: (await res.json()) as never };
}
