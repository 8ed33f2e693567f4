// The reviewer console as an OpenID Connect client: one public, first-party client per tenant,
// `console.<tenant id>`, derived rather than stored, so every tenant (one created tomorrow too)
// has it without a seed or a migration, and no admin can register, change or delete it. It uses
// PKCE alone (no secret: the console is a browser app) and redirects only to the console's own
// /console/callback on the origins configured in IDENTITY_CONSOLE_REDIRECT_URIS (default: the
// router's URL, and its `localhost` twin, which passkeys need). A registered client's id is
// random base64url (no '.'), so it can never collide with these.
import { ConfigError, readOptional } from '../../../platform/config/env';
import { serviceUrl } from '../../../platform/config/platform.config';
import type { Env } from '../../../platform/service';
import { LIMITS, PATTERNS } from '../identity.rules';
import type { OidcClientRecord, OidcClientStore } from './oidc.types';
import { redirectUriProblem } from './redirect-uri.rule';

export const CONSOLE_CLIENT_PREFIX = 'console.';
export const CONSOLE_CALLBACK_PATH = '/console/callback';
const TENANT_ID = new RegExp(PATTERNS.tenantId);

export const consoleClientId = (tenantId: string) => `${CONSOLE_CLIENT_PREFIX}${tenantId}`;

/** IDENTITY_CONSOLE_REDIRECT_URIS (comma list; `none` turns the console client off). */
export function loadConsoleRedirectUris(env: Env): string[] {
  const raw = readOptional(env, 'IDENTITY_CONSOLE_REDIRECT_URIS');
  if (raw?.trim() === 'none') return [];
  const uris = raw
    ? raw
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean)
    : defaultRedirectUris(serviceUrl(env, { name: 'gateway', port: 8080 }));
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ConfigError(`IDENTITY_CONSOLE_REDIRECT_URIS: ${uri} ${problem}`);
  }
  return uris;
}

function defaultRedirectUris(routerUrl: string): string[] {
  const url = new URL(CONSOLE_CALLBACK_PATH, routerUrl);
  const uris = [url.href];
  if (url.hostname === '127.0.0.1') {
    url.hostname = 'localhost';
    uris.push(url.href);
  }
  return uris;
}

export function consoleClientOf(clientId: string, redirectUris: string[]): OidcClientRecord | null {
  if (redirectUris.length === 0 || !clientId.startsWith(CONSOLE_CLIENT_PREFIX)) return null;
  const tenantId = clientId.slice(CONSOLE_CLIENT_PREFIX.length);
  if (tenantId.length > LIMITS.tenantId || !TENANT_ID.test(tenantId)) return null;
  return {
    clientId,
    tenantId,
    name: 'Reviewer console',
    redirectUris,
    firstParty: true,
    sealedSecret: null,
    createdBy: 'platform',
    createdAt: new Date(0),
  };
}

/** The client store with the console's derived clients beside the registered ones. */
export function withConsoleClients(store: OidcClientStore, redirectUris: string[]): OidcClientStore {
  return {
    create: (client) => store.create(client),
    list: (tenantId) => store.list(tenantId),
    async findById(clientId) {
      return consoleClientOf(clientId, redirectUris) ?? store.findById(clientId);
    },
  };
}
