// Wires the OIDC provider: its stores, signing keys, the provider host, client registration, key
// rotation and the interactions, plus the asymmetric verifier identity itself uses (over the key
// table, no HTTP round trip to its own JWKS).
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import type { PrismaClient } from '../../../generated/prisma/client';
import { AsymmetricTokens } from '../../../platform/auth/asymmetric-tokens';
import type { TenantAccess } from '../../../platform/auth/tenant-access';
import type { AuthService } from '../auth.service';
import type { IdentityStores } from '../identity.types';
import type { MfaSignInService } from '../mfa-sign-in.service';
import { SecretBox } from '../secret.box';
import { KeyRotationService } from './key-rotation.service';
import { withConsoleClients } from './console-client';
import { adapterClass } from './oidc.adapter';
import { OidcPayloadPurger } from './oidc-payload.purger';
import { tenantOfAccount, userOfAccount } from './oidc.account';
import { OidcClientService } from './oidc-client.service';
import type { OidcConfig } from './oidc.config';
import { OidcInteractions } from './oidc-interaction.service';
import { ProviderHost } from './oidc.provider';
import { prismaOidcUnitOfWork, type OidcUnitOfWork } from './oidc.stores';
import { SigningKeys, type ProviderKeys } from './signing-keys.service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface OidcServices {
  host: ProviderHost;
  clients: OidcClientService;
  keys: KeyRotationService;
  interactions: OidcInteractions;
  purger: OidcPayloadPurger;
  config: OidcConfig;
}

/** The key table and the verifier over it: built before identity's services, which verify with it. */
export function createOidcKeys(prisma: PrismaClient, config: OidcConfig, secretKey: Buffer) {
  const stores = prismaOidcUnitOfWork(prisma);
  const box = new SecretBox(secretKey);
  const settings = {
    alg: config.keyAlg,
    publishSeconds: config.keyPublishSeconds,
    tokenLifetimeSeconds: config.accessTokenSeconds,
  };
  const keysIn = (store: OidcUnitOfWork['keys']) => new SigningKeys(store, box, settings);
  const signingKeys = keysIn(stores.keys);
  // Reread at most every keyReloadSeconds (or at once after a rotation here).
  let cached: { at: number; keys: ProviderKeys; jwks: JWTVerifyGetKey } | undefined;
  const load = async (): Promise<ProviderKeys> => {
    if (cached && Date.now() - cached.at < config.keyReloadSeconds * 1000) return cached.keys;
    const keys = await signingKeys.current();
    cached = { at: Date.now(), keys, jwks: createLocalJWKSet({ keys: keys.publicJwks }) };
    return keys;
  };
  const localKeySet: JWTVerifyGetKey = async (header, token) => {
    await load();
    return cached!.jwks(header, token);
  };
  return {
    stores,
    box,
    keysIn,
    load,
    invalidate: () => (cached = undefined),
    verifier: new AsymmetricTokens(localKeySet, config.issuer),
  };
}

export function createOidcServices(
  keys: ReturnType<typeof createOidcKeys>,
  identity: {
    stores: Pick<IdentityStores, 'users'>;
    auth: AuthService;
    mfaSignIn: MfaSignInService;
    access: TenantAccess;
  },
  config: OidcConfig,
  onServerError: (err: unknown) => void,
): OidcServices {
  const { stores, box } = keys;
  // Registered clients, and the console's derived one per tenant (console-client.ts).
  const clients = withConsoleClients(stores.clients, config.consoleRedirectUris);
  const host = new ProviderHost(config, keys.load, {
    adapter: adapterClass(stores.payloads, clients, box),
    async findUser(accountId) {
      const tenantId = tenantOfAccount(accountId);
      const userId = userOfAccount(accountId);
      if (!tenantId || !userId || !UUID.test(userId)) return null;
      const [user] = await identity.stores.users.findByIds(tenantId, [userId]);
      return user && user.isActive ? user : null;
    },
    onServerError,
  });
  return {
    host,
    clients: new OidcClientService(stores, box, identity.access),
    keys: new KeyRotationService(stores, keys.keysIn, () => {
      keys.invalidate();
      host.invalidate();
    }),
    interactions: new OidcInteractions(host, clients, identity.stores.users, identity.auth, identity.mfaSignIn),
    purger: new OidcPayloadPurger(stores.payloads, { intervalMs: config.purgeSeconds * 1000, onError: onServerError }),
    config,
  };
}
