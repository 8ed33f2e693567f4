// The operators' doors on platform consumer groups (platform/events/backbone/platform-group.store.ts):
// the groups platform services consume every tenant's stream with (workflow triggers, the packs
// registry's catalogue, validation's caches), their dead letters and the redrive. Platform
// operators only: a tenant (even its admin) gets 403, because a group spans every tenant. What an
// operator reads or moves is recorded in each tenant touched: showing dead letters records an
// operator access (the events of a tenant were read), a redrive writes `events.dlq_redriven` to the
// tenant's ledger with the redrive, in its transaction.
import { assertPlatformOperator } from '../../platform/auth/auth-context';
import { requireAuth, type Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { SqlExecutor } from '../../platform/db/sql';
import { InputError, NotFoundError } from '../../platform/errors/domain-errors';
import type { DeadLetter } from '../../platform/events/backbone/backbone.types';
import {
  platformDeadLetters,
  platformGroupStats,
  redrivePlatformGroupAudited,
  type PlatformGroupStats,
} from '../../platform/events/backbone/platform-group.store';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { DLQ_REDRIVEN_EVENT } from './events.audit';

export const MAX_DEAD_LETTERS = 500;

export class PlatformGroupsService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
  ) {}

  private operator(caller: Caller): string {
    const auth = requireAuth(caller);
    assertPlatformOperator(auth);
    return auth.username;
  }

  async list(caller: Caller): Promise<PlatformGroupStats[]> {
    this.operator(caller);
    return platformGroupStats(this.sql);
  }

  async group(caller: Caller, name: string): Promise<PlatformGroupStats> {
    this.operator(caller);
    const [found] = await platformGroupStats(this.sql, name);
    if (!found) throw new NotFoundError(`Platform group '${name}' not found`);
    return found;
  }

  /** The group's dead letters, every tenant's, oldest first; each tenant shown records the operator's access. */
  async deadLetters(caller: Caller, name: string, limit = 100): Promise<DeadLetter[]> {
    await this.group(caller, name);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DEAD_LETTERS)
      throw InputError.of(['limit'], `Input should be between 1 and ${MAX_DEAD_LETTERS}`, 'less_than_equal');
    const dead = await platformDeadLetters(this.sql, name, limit);
    for (const tenantId of new Set(dead.map((d) => d.event.tenantId)))
      await this.access.resolve(caller, tenantId, ['query', 'tenant_id'], 'platform-groups.dlq.read');
    return dead;
  }

  /** Dead letters (all, or one tenant's) back on the group's queue with fresh attempts; audited per tenant. */
  async redrive(caller: Caller, name: string, tenantId?: string): Promise<{ tenantId: string; positions: number[] }[]> {
    const operator = this.operator(caller);
    await this.group(caller, name);
    return redrivePlatformGroupAudited(this.sql, name, tenantId, (tenant, positions) =>
      auditEvent(caller, {
        tenantId: tenant,
        type: DLQ_REDRIVEN_EVENT,
        actor: operator,
        data: {
          subscription: `platform:${name}`,
          positions: positions.slice(0, 1000),
          count: positions.length,
          operator,
          operator_tenant: caller.auth!.tenantId,
        },
      }),
    );
  }
}
