// oidc-provider's storage adapter over the database (one table, oidc_payloads), so sessions,
// codes and tokens are shared by every identity process; clients come from oidc_clients. The
// provider calls `new Adapter(modelName)` once per model; this module hands it a class bound to
// the stores. Rows past their expiry read as absent (oidc-payload.purger.ts deletes them later).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { SecretBox } from '../secret.box';
import { clientMetadataOf } from './oidc-client.metadata';
import type { OidcClientStore, OidcPayloadStore } from './oidc.types';
import { tenantOfAccount } from './oidc.account';

export function adapterClass(
  payloads: OidcPayloadStore,
  clients: OidcClientStore,
  box: SecretBox,
  now: () => Date = () => new Date(),
): new (name: string) => Adapter {
  return class DatabaseAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (this.model === 'Client') throw new Error('clients are registered through /v1/oidc/clients');
      const accountId = typeof payload.accountId === 'string' ? payload.accountId : undefined;
      await payloads.upsert(this.model, id, {
        payload: payload as Record<string, unknown>,
        tenantId: accountId ? (tenantOfAccount(accountId) ?? null) : null,
        grantId: payload.grantId ?? null,
        userCode: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expiresAt: expiresIn ? new Date(now().getTime() + expiresIn * 1000) : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        const client = await clients.findById(id);
        return client ? (clientMetadataOf(client, box) as AdapterPayload) : undefined;
      }
      return this.live(await payloads.find(this.model, id));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.live(await payloads.findBy(this.model, 'userCode', userCode));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.live(await payloads.findBy(this.model, 'uid', uid));
    }

    async consume(id: string): Promise<void> {
      await payloads.consume(this.model, id, now());
    }

    async destroy(id: string): Promise<void> {
      await payloads.destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await payloads.revokeByGrantId(grantId);
    }

    private live(
      row: { payload: Record<string, unknown>; expiresAt: Date | null; consumedAt: Date | null } | null,
    ): AdapterPayload | undefined {
      if (!row || (row.expiresAt && row.expiresAt <= now())) return undefined;
      // The provider reads `consumed` to refuse a code or refresh token used twice.
      return {
        ...(row.payload as AdapterPayload),
        ...(row.consumedAt ? { consumed: Math.floor(row.consumedAt.getTime() / 1000) } : {}),
      };
    }
  };
}
