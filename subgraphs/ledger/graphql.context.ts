// Per-request GraphQL context: the caller (built by the kernel) and a DataLoader that batches
// User.auditTrail lookups and LedgerEvent references of one request into one store query each.
import DataLoader from 'dataloader';
import type { Caller } from '../../platform/auth/caller';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { LedgerProofService } from './ledger-proof.service';
import type { LedgerService } from './ledger.service';
import type { LedgerEvent } from './ledger.types';

export interface AuditTrailKey {
  username: string;
  first: number;
  /** Only events with a smaller seq (cursor), or null for the newest. */
  before: number | null;
}

export interface LedgerGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: LedgerService;
  proofs: LedgerProofService;
  loaders: {
    auditTrail: DataLoader<AuditTrailKey, LedgerEvent[], string>;
    eventById: DataLoader<string, LedgerEvent | null>;
  };
  /** Present on graphql-ws connections only (see ledger.subscriptions.ts). */
  subscribeAppends?: (
    eventType: string | undefined,
    afterSeq: number | undefined,
  ) => Promise<AsyncIterableIterator<LedgerEvent>>;
}

export function ledgerContext(
  caller: Caller,
  service: LedgerService,
  requireAuth: boolean,
  proofs: LedgerProofService,
): LedgerGraphQLContext {
  const auditTrail = new DataLoader<AuditTrailKey, LedgerEvent[], string>(
    async (keys) => {
      // Keys of one request share first/after almost always; group by them, one query per group.
      const groups = new Map<string, AuditTrailKey[]>();
      for (const k of keys) {
        const g = `${k.first}:${k.before}`;
        groups.set(g, [...(groups.get(g) ?? []), k]);
      }
      const results = new Map<string, LedgerEvent[]>();
      for (const group of groups.values()) {
        const { first, before } = group[0]!;
        const lists = await service.auditTrails(
          caller,
          group.map((k) => k.username),
          first,
          before,
        );
        group.forEach((k, i) => results.set(JSON.stringify(k), lists[i]!));
      }
      return keys.map((k) => results.get(JSON.stringify(k)) ?? []);
    },
    { cacheKeyFn: (k) => JSON.stringify(k) },
  );
  // LedgerEvent references of one request: one tenant-scoped read.
  const eventById = new DataLoader<string, LedgerEvent | null>((ids) => service.eventsByIds(caller, ids));
  return { caller, requireAuth, service, proofs, loaders: { auditTrail, eventById } };
}

/** The caller, refusing anonymous callers when REQUIRE_AUTH=true. */
export function callerOf(ctx: LedgerGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
