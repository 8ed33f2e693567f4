// The operator's key rotation: platform operators only (keys sign every tenant's tokens), audited
// in the operator's tenant. `immediate` is for a leaked key: its tokens stop verifying at once.
import type { Caller } from '../../../platform/auth/caller';
import { auditEvent } from '../../../platform/outbox/outbox.writer';
import { requirePlatformOperator } from '../access.policy';
import { OIDC_EVENTS } from './oidc.audit';
import type { OidcUnitOfWork } from './oidc.stores';
import type { SigningKeys } from './signing-keys.service';

export class KeyRotationService {
  constructor(
    private readonly stores: OidcUnitOfWork,
    private readonly keysIn: (s: OidcUnitOfWork['keys']) => SigningKeys,
    private readonly afterRotation: () => void,
  ) {}

  async rotate(
    caller: Caller,
    input: { immediate: boolean },
  ): Promise<{ kid: string; alg: string; activatesAt: Date }> {
    const auth = requirePlatformOperator(caller);
    const rotated = await this.stores.transaction(async (s) => {
      const key = await this.keysIn(s.keys).rotate(input);
      await s.outbox.append(
        auditEvent(caller, {
          tenantId: auth.tenantId,
          type: OIDC_EVENTS.keyRotated,
          actor: auth.username,
          data: { kid: key.kid, alg: key.alg, activates_at: key.activatesAt.toISOString(), immediate: input.immediate },
        }),
      );
      return key;
    });
    this.afterRotation();
    return rotated;
  }
}
