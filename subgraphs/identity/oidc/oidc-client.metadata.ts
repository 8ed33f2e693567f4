// A registered client as oidc-provider's client metadata (RFC 7591 names). Public clients
// (no secret) authenticate with PKCE alone; confidential ones with client_secret_basic/post.
import type { SecretBox } from '../secret.box';
import type { OidcClientRecord } from './oidc.types';

export const CLIENT_GRANT_TYPES = ['authorization_code', 'refresh_token'];

export function clientSecretOwner(client: Pick<OidcClientRecord, 'tenantId' | 'clientId'>): string {
  return `oidc-client\u0000${client.tenantId}\u0000${client.clientId}`;
}

export function clientMetadataOf(client: OidcClientRecord, box: SecretBox): Record<string, unknown> {
  const secret = client.sealedSecret ? box.open(client.sealedSecret, clientSecretOwner(client)) : undefined;
  return {
    client_id: client.clientId,
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: CLIENT_GRANT_TYPES,
    response_types: ['code'],
    token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
    ...(secret ? { client_secret: secret } : {}),
    tenant_id: client.tenantId,
    first_party: client.firstParty,
  };
}
