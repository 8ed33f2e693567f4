// Registering OpenID Connect clients: a tenant's admins register relying parties for their
// tenant (a platform operator for any tenant, audited in that tenant's ledger); listing shows a
// tenant's own clients only. A confidential client's secret is shown once, stored sealed.
import { randomBytes } from 'node:crypto';
import type { Caller } from '../../../platform/auth/caller';
import type { TenantAccess } from '../../../platform/auth/tenant-access';
import { InputError } from '../../../platform/errors/domain-errors';
import { auditEvent } from '../../../platform/outbox/outbox.writer';
import { requireAdmin } from '../access.policy';
import type { SecretBox } from '../secret.box';
import { clientSecretOwner } from './oidc-client.metadata';
import type { OidcUnitOfWork } from './oidc.stores';
import type { OidcClientRecord } from './oidc.types';
import { OIDC_EVENTS } from './oidc.audit';
import { redirectUriProblem } from './redirect-uri.rule';

export interface NewOidcClient {
  name: string;
  redirectUris: string[];
  /** Confidential clients get a secret; public ones (browser/native apps) use PKCE alone. */
  confidential: boolean;
  firstParty?: boolean;
  tenantId?: string;
}

export class OidcClientService {
  constructor(
    private readonly stores: OidcUnitOfWork,
    private readonly box: SecretBox,
    private readonly access: TenantAccess,
  ) {}

  async register(caller: Caller, input: NewOidcClient): Promise<{ client: OidcClientRecord; secret?: string }> {
    const auth = requireAdmin(caller);
    const issues = input.redirectUris.flatMap((uri, i) => {
      const problem = redirectUriProblem(uri);
      return problem
        ? [{ loc: ['body', 'redirect_uris', i], msg: `redirect_uri ${problem}`, type: 'value_error' }]
        : [];
    });
    if (input.redirectUris.length === 0)
      issues.push({
        loc: ['body', 'redirect_uris'],
        msg: 'at least one redirect_uri is required',
        type: 'value_error',
      });
    if (issues.length > 0) throw new InputError(issues);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenant_id'], 'identity.oidc.clients.create');
    const clientId = randomBytes(16).toString('base64url');
    const secret = input.confidential ? randomBytes(32).toString('base64url') : undefined;
    return this.stores.transaction(async (s) => {
      const client = await s.clients.create({
        clientId,
        tenantId,
        name: input.name,
        redirectUris: [...new Set(input.redirectUris)],
        firstParty: input.firstParty ?? false,
        sealedSecret: secret ? this.box.seal(secret, clientSecretOwner({ tenantId, clientId })) : null,
        createdBy: auth.username,
      });
      await s.outbox.append(
        auditEvent(caller, {
          tenantId,
          type: OIDC_EVENTS.clientRegistered,
          actor: auth.username,
          data: {
            client_id: clientId,
            name: client.name,
            redirect_uris: client.redirectUris,
            confidential: input.confidential,
            first_party: client.firstParty,
          },
        }),
      );
      return { client, ...(secret ? { secret } : {}) };
    });
  }

  async list(caller: Caller, tenantId?: string): Promise<OidcClientRecord[]> {
    requireAdmin(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenant_id'], 'identity.oidc.clients.list');
    return this.stores.clients.list(tenant);
  }
}
