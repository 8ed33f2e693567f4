// The webhook doors' rules: who may do what to which tenant's endpoints. REST
// (rest-compat/events/webhooks.routes.ts) and GraphQL (subgraphs/events/resolvers.ts) call these
// methods with the Caller; each resolves the tenant by the platform's one rule (TenantAccess, so an
// operator's access is written to the tenant's ledger) and then calls the tenant-first endpoint
// service. Reading a secret or changing anything needs the `write` scope: a read-only token may
// look at endpoints and their delivery log, never at what signs them.
import { assertScope } from '../../../platform/auth/auth-context';
import type { Caller } from '../../../platform/auth/caller';
import type { TenantAccess } from '../../../platform/auth/tenant-access';
import type { DeliveryRow, MessageRow } from './delivery.store';
import type { Endpoint, EndpointInput, EndpointService, RotatedSecret } from './endpoint.service';
import type { Jwks } from './webhook.signer';

export class WebhookService {
  constructor(
    private readonly endpoints: EndpointService,
    private readonly access: TenantAccess,
  ) {}

  private tenant(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    return this.access.resolve(caller, requested, ['tenantId'], `events.webhooks.${action}`);
  }

  /** A token must carry `write` (anonymous callers are the trusted network's, as everywhere in the service). */
  private writeTenant(caller: Caller, requested: string | undefined, action: string): Promise<string> {
    if (caller.auth) assertScope(caller.auth, 'write');
    return this.tenant(caller, requested, action);
  }

  async list(caller: Caller, requestedTenant?: string): Promise<Endpoint[]> {
    return this.endpoints.list(await this.tenant(caller, requestedTenant, 'list'));
  }

  async get(caller: Caller, id: string, requestedTenant?: string): Promise<Endpoint> {
    return this.endpoints.get(await this.tenant(caller, requestedTenant, 'get'), id);
  }

  /** Registers an endpoint; the answer carries its secret (`whsec_...`). */
  async create(
    caller: Caller,
    input: EndpointInput,
    requestedTenant?: string,
  ): Promise<{ endpoint: Endpoint; secret: string }> {
    return this.endpoints.create(await this.writeTenant(caller, requestedTenant, 'create'), input);
  }

  async update(caller: Caller, id: string, input: EndpointInput, requestedTenant?: string): Promise<Endpoint> {
    return this.endpoints.update(await this.writeTenant(caller, requestedTenant, 'update'), id, input);
  }

  async remove(caller: Caller, id: string, requestedTenant?: string): Promise<void> {
    await this.endpoints.remove(await this.writeTenant(caller, requestedTenant, 'delete'), id);
  }

  async secret(caller: Caller, id: string, requestedTenant?: string): Promise<string> {
    return this.endpoints.secret(await this.writeTenant(caller, requestedTenant, 'secret'), id);
  }

  async rotateSecret(
    caller: Caller,
    id: string,
    overlapSeconds?: number,
    requestedTenant?: string,
  ): Promise<RotatedSecret> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'rotate_secret');
    return this.endpoints.rotateSecret(tenantId, id, overlapSeconds);
  }

  async attempts(caller: Caller, id: string, limit?: number, requestedTenant?: string): Promise<DeliveryRow[]> {
    return this.endpoints.attempts(await this.tenant(caller, requestedTenant, 'attempts'), id, limit);
  }

  async messages(caller: Caller, id: string, limit?: number, requestedTenant?: string): Promise<MessageRow[]> {
    return this.endpoints.messages(await this.tenant(caller, requestedTenant, 'messages'), id, limit);
  }

  async redeliver(caller: Caller, id: string, eventId: string, requestedTenant?: string): Promise<void> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'redeliver');
    await this.endpoints.redeliverEvent(tenantId, id, eventId);
  }

  /** The tenant's public keys (its first key is made on the first call). */
  async jwks(caller: Caller, requestedTenant?: string): Promise<Jwks> {
    return this.endpoints.jwks(await this.tenant(caller, requestedTenant, 'jwks'));
  }

  async rotateSigningKey(caller: Caller, overlapSeconds?: number, requestedTenant?: string): Promise<Jwks> {
    const tenantId = await this.writeTenant(caller, requestedTenant, 'rotate_signing_key');
    return this.endpoints.rotateSigningKey(tenantId, overlapSeconds);
  }

  /**
   * A tenant's published keys without a caller: public keys, served unauthenticated so receivers
   * can verify `v1a` without an account. Makes no key (null when the tenant has none).
   */
  publishedJwks(tenantId: string): Promise<Jwks | null> {
    return this.endpoints.publishedJwks(tenantId);
  }
}
